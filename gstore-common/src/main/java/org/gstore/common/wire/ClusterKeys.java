package org.gstore.common.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Separate keys for separate jobs, derived from the one cluster secret with HKDF-SHA256 (RFC 5869): datagrams and
 * owner tokens are authenticated with different keys, so a key that leaks from one use (a captured datagram
 * key, say) does not also mint owner tokens, and a MAC made for one purpose never verifies for the other.
 */
public final class ClusterKeys {
  /** The key that authenticates protocol datagrams. */
  public static final String DATAGRAMS = "gstore datagrams v1";
  /** The key that encrypts protocol datagrams when they must stay private ({@link DatagramProtection#PRIVACY}). */
  public static final String DATAGRAM_PRIVACY = "gstore datagram privacy v1";
  /** The key that signs owner tokens (the fence's proof that a write comes from the owning group). */
  public static final String OWNER_TOKENS = "gstore owner tokens v1";
  private static final byte[] SALT = "gstore cluster keys".getBytes(StandardCharsets.UTF_8);
  private static final int KEY_BYTES = 32;

  private ClusterKeys() {}

  private static final String FINGERPRINT = "gstore secret fingerprint v1";

  /**
   * Eight hex digits that name a secret without revealing it (a key derived for this use only): servers log the
   * fingerprints of the secrets they sign with and accept, so an operator can tell which phase of a rotation each
   * server is in.
   */
  public static String fingerprint(byte[] clusterSecret) {
    byte[] key = derive(clusterSecret, FINGERPRINT);
    return String.format("%02x%02x%02x%02x", key[0], key[1], key[2], key[3]);
  }

  /** The 32-byte key for {@code purpose} (one of the constants above). */
  public static byte[] derive(byte[] clusterSecret, String purpose) {
    return hkdf(SALT, clusterSecret, purpose.getBytes(StandardCharsets.UTF_8), KEY_BYTES);
  }

  static byte[] hkdf(byte[] salt, byte[] inputKey, byte[] info, int length) {
    try {
      byte[] pseudoRandomKey = hmac(salt, inputKey);
      ByteArrayOutputStream out = new ByteArrayOutputStream(length);
      byte[] block = new byte[0];
      for (int i = 1; out.size() < length; i++) {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(pseudoRandomKey, "HmacSHA256"));
        mac.update(block);
        mac.update(info);
        mac.update((byte) i);
        block = mac.doFinal();
        out.write(block, 0, Math.min(block.length, length - out.size()));
      }
      return out.toByteArray();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 unavailable", e);
    }
  }

  private static byte[] hmac(byte[] key, byte[] data) throws GeneralSecurityException {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key.length == 0 ? new byte[32] : key, "HmacSHA256"));
    return mac.doFinal(data);
  }
}
