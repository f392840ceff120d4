package org.gstore.common.wire;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@link DatagramProtection#PRIVACY}: header, a 12-byte nonce, then the body encrypted with AES-256-GCM under a key
 * of its own derived from the cluster secret (the header is the cipher's associated data, so it is authenticated
 * too), ending in GCM's 16-byte tag.
 *
 * <p>GCM is broken by a nonce used twice under one key, and every server shares the key: each seal draws a random
 * 96-bit starting nonce and counts up from it. Two seals repeat a nonce only if the runs of nonces they use overlap
 * in a space of 2^96, far less likely than a random nonce per frame colliding (whose safe bound, 2^32 frames per
 * key, a busy cluster could reach in weeks).
 */
final class CipherSeal implements FrameSeal {
  private static final String ALGORITHM = "AES/GCM/NoPadding";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  private final SecretKeySpec key;
  /** Null outside a rotation. */
  private final SecretKeySpec acceptedKey;
  private final byte[] firstNonce = new byte[NONCE_BYTES];
  private final AtomicLong sealed = new AtomicLong();
  private final ThreadLocal<Cipher> ciphers = ThreadLocal.withInitial(CipherSeal::newCipher);

  CipherSeal(byte[] secret, byte[] acceptedSecret) {
    this.key = key(secret);
    this.acceptedKey = acceptedSecret == null ? null : key(acceptedSecret);
    new SecureRandom().nextBytes(firstNonce);
  }

  private static SecretKeySpec key(byte[] clusterSecret) {
    return new SecretKeySpec(ClusterKeys.derive(clusterSecret, ClusterKeys.DATAGRAM_PRIVACY), "AES");
  }

  @Override
  public byte tag() {
    return 'P';
  }

  @Override
  public int overhead() {
    return HEADER + NONCE_BYTES + TAG_BITS / 8;
  }

  @Override
  public byte[] seal(int version, byte[] body) {
    byte[] frame = new byte[overhead() + body.length];
    frame[0] = 'G';
    frame[1] = tag();
    frame[2] = (byte) version;
    nextNonce(frame, HEADER);
    try {
      Cipher cipher = ciphers.get();
      cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, frame, HEADER, NONCE_BYTES));
      cipher.updateAAD(frame, 0, HEADER);
      cipher.doFinal(body, 0, body.length, frame, HEADER + NONCE_BYTES);
      return frame;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM failed to encrypt a datagram", e);
    }
  }

  /** Writes the next nonce: the first one plus the count of frames sealed before, in its last eight bytes. */
  private void nextNonce(byte[] out, int at) {
    long n = sealed.getAndIncrement();
    System.arraycopy(firstNonce, 0, out, at, NONCE_BYTES);
    long low = 0;
    for (int i = 4; i < NONCE_BYTES; i++) {
      low = low << 8 | (firstNonce[i] & 0xff);
    }
    low += n;
    for (int i = NONCE_BYTES - 1; i >= 4; i--) {
      out[at + i] = (byte) low;
      low >>>= 8;
    }
  }

  @Override
  public byte[] open(byte[] frame, int offset, int length) {
    byte[] body = open(key, frame, offset, length);
    return body != null || acceptedKey == null ? body : open(acceptedKey, frame, offset, length);
  }

  private byte[] open(SecretKeySpec with, byte[] frame, int offset, int length) {
    try {
      Cipher cipher = ciphers.get();
      cipher.init(Cipher.DECRYPT_MODE, with, new GCMParameterSpec(TAG_BITS, frame, offset + HEADER, NONCE_BYTES));
      cipher.updateAAD(frame, offset, HEADER);
      return cipher.doFinal(frame, offset + HEADER + NONCE_BYTES, length - HEADER - NONCE_BYTES);
    } catch (GeneralSecurityException e) {
      return null; // a bad tag above all; whatever arrives on the port must only be refused
    }
  }

  @Override
  public String refusal() {
    return "AES-GCM tag mismatch";
  }

  private static Cipher newCipher() {
    try {
      return Cipher.getInstance(ALGORITHM);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM unavailable", e);
    }
  }
}
