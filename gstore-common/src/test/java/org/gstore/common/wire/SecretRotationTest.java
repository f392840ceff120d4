package org.gstore.common.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Join;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rotation of the cluster secret in operations.md, done with rolling restarts: every server first accepts the
 * new secret (phase 1), then signs with it while accepting the old one (phase 2), then drops the old one (phase 3).
 * During each rolling restart servers of two neighbouring phases run side by side, and each must take the other's
 * datagrams and owner tokens; a server that skipped a phase must not be needed.
 */
@Timeout(10)
class SecretRotationTest {
  private static final byte[] OLD = "the-old-cluster-secret".getBytes(StandardCharsets.UTF_8);
  private static final byte[] NEW = "the-new-cluster-secret".getBytes(StandardCharsets.UTF_8);
  private static final NodeId A = new NodeId("10.0.0.1:16050");
  private static final NodeId B = new NodeId("10.0.0.2:16050");
  private static final Key ROW = Key.of("players", "alice");
  private static final GroupRef GROUP = new GroupRef(new GroupId("game", ROW), new Uid(A, 1));

  /** A server's secrets in one phase: the one it signs with, and the one it accepts besides (null: none). */
  private record Server(String phase, byte[] secret, byte[] accepted) {
    DatagramCodec codec() {
      return new DatagramCodec(secret, accepted, 60_000, 0, System::currentTimeMillis);
    }

    OwnerToken tokens() {
      return new OwnerToken(secret, accepted);
    }
  }

  private static final List<Server> PHASES = List.of(new Server("before", OLD, null),
      new Server("1: accept the new", OLD, NEW), new Server("2: sign with the new", NEW, OLD),
      new Server("3: drop the old", NEW, null));

  @Test
  void serversOfNeighbouringPhasesTakeEachOthersDatagramsAndTokens() throws Exception {
    for (int i = 0; i + 1 < PHASES.size(); i++) {
      for (Server[] pair : new Server[][] {{PHASES.get(i), PHASES.get(i + 1)}, {PHASES.get(i + 1), PHASES.get(i)}}) {
        Server sender = pair[0];
        Server receiver = pair[1];
        String how = sender.phase() + " -> " + receiver.phase();
        byte[] frame = sender.codec().encode(datagram());
        assertThat(receiver.codec().decode(frame, 0, frame.length)).as(how).isEqualTo(datagram());
        assertThat(receiver.tokens().verify(sender.tokens().sign(GROUP, ROW), ROW)).as(how).isEqualTo(GROUP);
      }
    }
  }

  @Test
  void aServerTwoPhasesBehindIsLeftOut() {
    Server before = PHASES.get(0);
    Server signingWithTheNew = PHASES.get(2);
    byte[] frame = signingWithTheNew.codec().encode(datagram());
    assertThatThrownBy(() -> before.codec().decode(frame, 0, frame.length))
        .isInstanceOf(DatagramRejectedException.class).hasMessageContaining("HMAC");
    assertThat(before.tokens().verify(signingWithTheNew.tokens().sign(GROUP, ROW), ROW)).isNull();
  }

  @Test
  void theAcceptedSecretNeverSigns() throws Exception {
    Server phase1 = PHASES.get(1);
    byte[] frame = phase1.codec().encode(datagram());
    assertThatThrownBy(() -> new DatagramCodec(NEW, 60_000).decode(frame, 0, frame.length))
        .isInstanceOf(DatagramRejectedException.class);
    assertThat(new OwnerToken(NEW).verify(phase1.tokens().sign(GROUP, ROW), ROW)).isNull();
    assertThat(new OwnerToken(OLD).verify(phase1.tokens().sign(GROUP, ROW), ROW)).isEqualTo(GROUP);
  }

  @Test
  void aThirdSecretIsRefusedByAServerThatAcceptsTwo() {
    byte[] other = "some-other-secret-entirely".getBytes(StandardCharsets.UTF_8);
    Server phase2 = PHASES.get(2);
    byte[] frame = new DatagramCodec(other, 60_000).encode(datagram());
    assertThatThrownBy(() -> phase2.codec().decode(frame, 0, frame.length))
        .isInstanceOf(DatagramRejectedException.class);
    assertThat(phase2.tokens().verify(new OwnerToken(other).sign(GROUP, ROW), ROW)).isNull();
    assertThat(phase2.tokens().verify(phase2.tokens().sign(GROUP, ROW), Key.of("players", "bob")))
        .as("a token for one row still opens no other").isNull();
  }

  private static Datagram datagram() {
    return new Datagram(A, B, List.of(new Join(GROUP, ROW)), List.of());
  }
}
