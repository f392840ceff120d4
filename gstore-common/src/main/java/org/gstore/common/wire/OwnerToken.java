package org.gstore.common.wire;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.generated.KeyGroupingProtos.GroupRefProto;

/**
 * Proof that a write to a grouped row comes from the group that owns it: the group's identity, signed with the
 * cluster secret together with the row it is for. Region servers attach it to the writes their update shipper sends
 * ({@link #ATTRIBUTE}); the fencing observer lets a write through only if the token verifies and names the group
 * the row belongs to. The key is derived from the cluster secret for this use only ({@link ClusterKeys}). A plain
 * client, without the secret, cannot make one, and a token for one row does not open
 * another. During a rotation of the cluster secret a second, accepted secret verifies tokens too; tokens are
 * always signed with the cluster secret. Thread-safe.
 */
public final class OwnerToken {
  /** The mutation attribute that carries the token. */
  public static final String ATTRIBUTE = "gstore.owner";
  private static final String ALGORITHM = "HmacSHA256";
  private static final int MAC_LENGTH = 32;

  /** The signing key's MAC first, then the accepted key's, if any. */
  private final ThreadLocal<Mac[]> macs;

  /** Tokens keyed with the owner-token key derived from the cluster secret ({@link ClusterKeys}). */
  public OwnerToken(byte[] clusterSecret) {
    this(clusterSecret, null);
  }

  /**
   * Tokens signed with the key derived from {@code clusterSecret}, and verified with it or with the one derived from
   * {@code acceptedSecret} (null: none), as while the cluster secret is rotated.
   */
  public OwnerToken(byte[] clusterSecret, byte[] acceptedSecret) {
    this(acceptedSecret == null ? new SecretKeySpec[] {ownerKey(clusterSecret)}
        : new SecretKeySpec[] {ownerKey(clusterSecret), ownerKey(acceptedSecret)});
  }

  /** Tokens keyed with {@code key} as it is, for tests that must forge with a wrong key. */
  static OwnerToken withKey(byte[] key) {
    return new OwnerToken(new SecretKeySpec[] {new SecretKeySpec(key.clone(), ALGORITHM)});
  }

  private static SecretKeySpec ownerKey(byte[] secret) {
    return new SecretKeySpec(ClusterKeys.derive(secret, ClusterKeys.OWNER_TOKENS), ALGORITHM);
  }

  private OwnerToken(SecretKeySpec[] keys) {
    this.macs = ThreadLocal.withInitial(() -> {
      try {
        Mac[] macs = new Mac[keys.length];
        for (int i = 0; i < keys.length; i++) {
          macs[i] = Mac.getInstance(ALGORITHM);
          macs[i].init(keys[i]);
        }
        return macs;
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("HMAC-SHA256 unavailable", e);
      }
    });
  }

  /** A token for writing {@code row} on behalf of {@code group}. */
  public byte[] sign(GroupRef group, Key row) {
    byte[] body = DatagramCodec.toProto(group).toByteArray();
    byte[] mac = mac(macs.get()[0], body, row);
    byte[] token = new byte[body.length + MAC_LENGTH];
    System.arraycopy(body, 0, token, 0, body.length);
    System.arraycopy(mac, 0, token, body.length, MAC_LENGTH);
    return token;
  }

  /** The group a token speaks for if it is authentic and was made for {@code row}; {@code null} otherwise. */
  public GroupRef verify(byte[] token, Key row) {
    if (token == null || token.length <= MAC_LENGTH) {
      return null;
    }
    byte[] body = new byte[token.length - MAC_LENGTH];
    System.arraycopy(token, 0, body, 0, body.length);
    byte[] mac = new byte[MAC_LENGTH];
    System.arraycopy(token, body.length, mac, 0, MAC_LENGTH);
    if (!verifiesWithAnyKey(mac, body, row)) {
      return null;
    }
    try {
      return DatagramCodec.fromProto(GroupRefProto.parseFrom(ByteString.copyFrom(body)));
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      return null;
    }
  }

  private boolean verifiesWithAnyKey(byte[] mac, byte[] body, Key row) {
    for (Mac key : macs.get()) {
      if (MessageDigest.isEqual(mac, mac(key, body, row))) {
        return true;
      }
    }
    return false;
  }

  private static byte[] mac(Mac mac, byte[] body, Key row) {
    mac.update(row.table().getBytes(StandardCharsets.UTF_8));
    mac.update((byte) 0);
    byte[] r = row.row();
    mac.update(ByteBuffer.allocate(Integer.BYTES).putInt(r.length).array()); // so row and body cannot shift
    mac.update(r);
    mac.update(body);
    return mac.doFinal();
  }
}
