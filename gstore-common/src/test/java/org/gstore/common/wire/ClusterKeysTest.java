package org.gstore.common.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.junit.jupiter.api.Test;

class ClusterKeysTest {
  @Test
  void hkdfMatchesRfc5869TestCaseOne() {
    HexFormat hex = HexFormat.of();
    byte[] okm = ClusterKeys.hkdf(hex.parseHex("000102030405060708090a0b0c"),
        hex.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), hex.parseHex("f0f1f2f3f4f5f6f7f8f9"), 42);
    assertThat(hex.formatHex(okm)).isEqualTo(
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
  }

  @Test
  void aFingerprintNamesASecretStablyAndIsNoPartOfItsKeys() {
    byte[] secret = "a cluster secret of some length".getBytes(StandardCharsets.UTF_8);
    String fingerprint = ClusterKeys.fingerprint(secret);
    assertThat(fingerprint).matches("[0-9a-f]{8}").isEqualTo(ClusterKeys.fingerprint(secret.clone()));
    assertThat(ClusterKeys.fingerprint("another secret of some length".getBytes(StandardCharsets.UTF_8)))
        .isNotEqualTo(fingerprint);
    HexFormat hex = HexFormat.of();
    for (String purpose : new String[] {ClusterKeys.DATAGRAMS, ClusterKeys.OWNER_TOKENS}) {
      assertThat(hex.formatHex(ClusterKeys.derive(secret, purpose))).doesNotStartWith(fingerprint);
    }
  }

  @Test
  void datagramAndOwnerTokenKeysDifferAndAreStable() {
    byte[] secret = "a cluster secret of some length".getBytes(StandardCharsets.UTF_8);
    byte[] datagrams = ClusterKeys.derive(secret, ClusterKeys.DATAGRAMS);
    assertThat(datagrams).hasSize(32).isEqualTo(ClusterKeys.derive(secret, ClusterKeys.DATAGRAMS))
        .isNotEqualTo(ClusterKeys.derive(secret, ClusterKeys.OWNER_TOKENS)).isNotEqualTo(secret);
  }

  @Test
  void anOwnerTokenMacMadeWithTheRawSecretOrTheDatagramKeyDoesNotVerify() {
    byte[] secret = "a cluster secret of some length".getBytes(StandardCharsets.UTF_8);
    Key row = Key.of("t", new byte[] {1});
    GroupRef group = new GroupRef(new GroupId("g", row), new Uid(new NodeId("n"), 1));
    OwnerToken tokens = new OwnerToken(secret);
    assertThat(tokens.verify(tokens.sign(group, row), row)).isEqualTo(group);
    // a token keyed like before the keys were split, or with the datagram key, is a forgery
    assertThat(tokens.verify(OwnerToken.withKey(secret).sign(group, row), row)).isNull();
    assertThat(tokens.verify(OwnerToken.withKey(ClusterKeys.derive(secret, ClusterKeys.DATAGRAMS))
        .sign(group, row), row)).isNull();
  }
}
