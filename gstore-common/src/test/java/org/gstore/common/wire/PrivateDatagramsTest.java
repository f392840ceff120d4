package org.gstore.common.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Join;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.DatagramRejectedException.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link DatagramProtection#PRIVACY}: datagrams that hide their row keys and group names, and stay authentic. */
@Timeout(10)
class PrivateDatagramsTest {
  private static final byte[] SECRET = "a-cluster-secret-of-some-length".getBytes(StandardCharsets.UTF_8);
  private static final byte[] NEW_SECRET = "the-secret-that-replaces-it".getBytes(StandardCharsets.UTF_8);
  private static final NodeId A = new NodeId("10.0.0.1:16050");
  private static final NodeId B = new NodeId("10.0.0.2:16050");
  private static final String ROW = "player-row-key-4711";
  private static final String GROUP = "secret-game-name";

  private static DatagramCodec codec(byte[] secret, byte[] accepted, DatagramProtection protection) {
    return new DatagramCodec(secret, accepted, DatagramCodec.VERSION, 60_000, 60_000, System::currentTimeMillis,
        protection);
  }

  private static final DatagramCodec PRIVATE = codec(SECRET, null, DatagramProtection.PRIVACY);
  private static final DatagramCodec CLEAR = codec(SECRET, null, DatagramProtection.INTEGRITY);

  private static Datagram datagram() {
    Key leader = Key.of("ns:games", "leader-" + ROW);
    Key member = Key.of("ns:players", ROW);
    GroupRef g = new GroupRef(new GroupId(GROUP, leader), new Uid(A, 7));
    return new Datagram(A, B, List.of(new Join(g, member)), List.of(Key.of("ns:players", "moved-" + ROW)));
  }

  @Test
  void aPrivateDatagramShowsNoRowKeyNorGroupNameAndSurvivesARoundTrip() throws Exception {
    byte[] frame = PRIVATE.encode(datagram());
    String asText = new String(frame, StandardCharsets.ISO_8859_1);
    assertThat(asText).doesNotContain(ROW).doesNotContain(GROUP).doesNotContain("ns:players");
    assertThat(PRIVATE.decode(frame, 0, frame.length)).isEqualTo(datagram());
    byte[] clear = CLEAR.encode(datagram());
    assertThat(new String(clear, StandardCharsets.ISO_8859_1)).as("the clear frame, for contrast").contains(ROW);
  }

  @Test
  void theSameDatagramTwiceNeverRepeatsANonceNorACiphertext() {
    Set<String> nonces = new HashSet<>();
    Set<String> frames = new HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      byte[] frame = PRIVATE.encode(datagram());
      nonces.add(new String(frame, FrameSeal.HEADER, 12, StandardCharsets.ISO_8859_1));
      frames.add(new String(frame, StandardCharsets.ISO_8859_1));
    }
    assertThat(nonces).hasSize(1_000);
    assertThat(frames).hasSize(1_000);
  }

  @Test
  void threadsSealingAtOnceNeverShareANonce() throws Exception {
    Set<String> nonces = java.util.concurrent.ConcurrentHashMap.newKeySet();
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(threads.submit(() -> {
          for (int i = 0; i < 2_000; i++) {
            byte[] frame = PRIVATE.encode(datagram());
            nonces.add(new String(frame, FrameSeal.HEADER, 12, StandardCharsets.ISO_8859_1));
          }
        }));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(nonces).hasSize(8_000);
  }

  @Test
  void anyFlippedBitIsDetected() {
    byte[] frame = PRIVATE.encode(datagram());
    for (int i = 0; i < frame.length; i++) {
      byte[] tampered = frame.clone();
      tampered[i] ^= 0x10;
      assertThatThrownBy(() -> PRIVATE.decode(tampered, 0, tampered.length)).as("byte %d", i)
          .isInstanceOf(DatagramRejectedException.class);
    }
  }

  @Test
  void anotherClustersPrivateDatagramIsUnauthenticated() {
    byte[] frame = codec(NEW_SECRET, null, DatagramProtection.PRIVACY).encode(datagram());
    assertThatThrownBy(() -> PRIVATE.decode(frame, 0, frame.length)).isInstanceOf(DatagramRejectedException.class)
        .hasMessageContaining("AES-GCM").extracting(e -> ((DatagramRejectedException) e).reason())
        .isEqualTo(Reason.UNAUTHENTICATED);
  }

  @Test
  void truncatedOrTooShortFramesAreRejectedNotThrown() {
    byte[] frame = PRIVATE.encode(datagram());
    for (int length = 0; length < frame.length; length++) {
      int l = length;
      assertThatThrownBy(() -> PRIVATE.decode(frame, 0, l)).as("length %d", l)
          .isInstanceOf(DatagramRejectedException.class);
    }
  }

  @Test
  void serversSwitchingProtectionWithARollingRestartTakeEachOthersDatagrams() throws Exception {
    for (DatagramCodec[] pair : new DatagramCodec[][] {{CLEAR, PRIVATE}, {PRIVATE, CLEAR}}) {
      byte[] frame = pair[0].encode(datagram());
      assertThat(pair[1].decode(frame, 0, frame.length)).isEqualTo(datagram());
    }
    assertThat(PRIVATE.protection()).isEqualTo(DatagramProtection.PRIVACY);
    assertThat(CLEAR.protection()).isEqualTo(DatagramProtection.INTEGRITY);
  }

  @Test
  void privateDatagramsFollowASecretRotation() throws Exception {
    DatagramCodec acceptingTheNew = codec(SECRET, NEW_SECRET, DatagramProtection.PRIVACY);
    DatagramCodec signingWithTheNew = codec(NEW_SECRET, SECRET, DatagramProtection.PRIVACY);
    byte[] fromOld = PRIVATE.encode(datagram());
    byte[] fromNew = signingWithTheNew.encode(datagram());
    assertThat(signingWithTheNew.decode(fromOld, 0, fromOld.length)).isEqualTo(datagram());
    assertThat(acceptingTheNew.decode(fromNew, 0, fromNew.length)).isEqualTo(datagram());
    assertThatThrownBy(() -> PRIVATE.decode(fromNew, 0, fromNew.length))
        .isInstanceOf(DatagramRejectedException.class);
  }

  @Test
  void version1HasNoEncryptedFramesSoARollingUpgradeSendsClearOnes() throws Exception {
    assertThatThrownBy(() -> new DatagramCodec(SECRET, null, 1, 60_000, 60_000, System::currentTimeMillis,
        DatagramProtection.PRIVACY)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("version");
    DatagramCodec previousRelease = new DatagramCodec(SECRET, null, 1, 1, 1, 60_000, 60_000,
        System::currentTimeMillis);
    byte[] clear = new DatagramCodec(SECRET, null, 1, 60_000, 60_000, System::currentTimeMillis).encode(datagram());
    assertThat(previousRelease.decode(clear, 0, clear.length)).isEqualTo(datagram());
    byte[] encrypted = PRIVATE.encode(datagram());
    assertThatThrownBy(() -> previousRelease.decode(encrypted, 0, encrypted.length))
        .isInstanceOf(DatagramRejectedException.class);
  }

  @Test
  void thePrivacyKeyIsNotTheAuthenticationKey() {
    assertThat(ClusterKeys.derive(SECRET, ClusterKeys.DATAGRAM_PRIVACY))
        .isNotEqualTo(ClusterKeys.derive(SECRET, ClusterKeys.DATAGRAMS));
  }
}
