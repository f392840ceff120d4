package org.gstore.common.wire;

/**
 * Protects a datagram's body, the frame's header bound to it: {@link MacSeal} authenticates it in clear,
 * {@link CipherSeal} encrypts it too. A frame starts with {@code 'G'}, the seal's {@link #tag()} and the wire version
 * byte; what follows is the seal's. Each seal holds the key derived from the cluster secret and, while the secret
 * is rotated, the one derived from the accepted secret. Thread-safe.
 */
interface FrameSeal {
  /** The frame's header: {@code 'G'}, the seal's tag and the wire version. */
  int HEADER = 3;

  /** The frame's second byte, which names the seal. */
  byte tag();

  /** The bytes a frame takes besides its body. */
  int overhead();

  /** The frame of {@code body} under the cluster secret's key. */
  byte[] seal(int version, byte[] body);

  /**
   * The body of a frame of this seal if the cluster secret's key or the accepted one authenticates it, else null.
   * The caller checked that the frame is at least {@link #overhead()} bytes long.
   */
  byte[] open(byte[] frame, int offset, int length);

  /** What {@link DatagramRejectedException} says of a frame {@link #open} refused. */
  String refusal();
}
