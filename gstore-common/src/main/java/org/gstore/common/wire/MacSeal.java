package org.gstore.common.wire;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** {@link DatagramProtection#INTEGRITY}: header, body in clear, then an HMAC-SHA256 of both. */
final class MacSeal implements FrameSeal {
  private static final int MAC_LENGTH = 32;
  private static final String ALGORITHM = "HmacSHA256";

  private final ThreadLocal<Mac> macs;
  /** Null outside a rotation. */
  private final ThreadLocal<Mac> acceptedMacs;

  MacSeal(byte[] secret, byte[] acceptedSecret) {
    SecretKeySpec key = key(secret);
    SecretKeySpec accepted = acceptedSecret == null ? null : key(acceptedSecret);
    this.macs = ThreadLocal.withInitial(() -> newMac(key));
    this.acceptedMacs = accepted == null ? null : ThreadLocal.withInitial(() -> newMac(accepted));
  }

  private static SecretKeySpec key(byte[] clusterSecret) {
    return new SecretKeySpec(ClusterKeys.derive(clusterSecret, ClusterKeys.DATAGRAMS), ALGORITHM);
  }

  @Override
  public byte tag() {
    return 'S';
  }

  @Override
  public int overhead() {
    return HEADER + MAC_LENGTH;
  }

  @Override
  public byte[] seal(int version, byte[] body) {
    byte[] frame = new byte[HEADER + body.length + MAC_LENGTH];
    frame[0] = 'G';
    frame[1] = tag();
    frame[2] = (byte) version;
    System.arraycopy(body, 0, frame, HEADER, body.length);
    Mac mac = macs.get();
    mac.update(frame, 0, HEADER + body.length);
    try {
      mac.doFinal(frame, HEADER + body.length);
    } catch (javax.crypto.ShortBufferException e) {
      throw new IllegalStateException(e);
    }
    return frame;
  }

  @Override
  public byte[] open(byte[] frame, int offset, int length) {
    byte[] actual = Arrays.copyOfRange(frame, offset + length - MAC_LENGTH, offset + length);
    if (authentic(macs.get(), frame, offset, length, actual)
        || acceptedMacs != null && authentic(acceptedMacs.get(), frame, offset, length, actual)) {
      return Arrays.copyOfRange(frame, offset + HEADER, offset + length - MAC_LENGTH);
    }
    return null;
  }

  @Override
  public String refusal() {
    return "HMAC mismatch";
  }

  private static boolean authentic(Mac mac, byte[] frame, int offset, int length, byte[] actual) {
    mac.update(frame, offset, length - MAC_LENGTH);
    return MessageDigest.isEqual(mac.doFinal(), actual);
  }

  private static Mac newMac(SecretKeySpec key) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 unavailable", e);
    }
  }
}
