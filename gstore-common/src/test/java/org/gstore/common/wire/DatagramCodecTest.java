package org.gstore.common.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.Delete;
import org.gstore.common.protocol.DeleteAck;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Join;
import org.gstore.common.protocol.JoinAck;
import org.gstore.common.protocol.JoinAckAck;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.Message;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.DatagramRejectedException.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class DatagramCodecTest {
  private static final byte[] SECRET = "a-cluster-secret-of-some-length".getBytes(StandardCharsets.UTF_8);
  private static final NodeId A = new NodeId("10.0.0.1:16050");
  private static final NodeId B = new NodeId("10.0.0.2:16050");

  private final DatagramCodec codec = new DatagramCodec(SECRET, 60_000);

  private static Datagram everyMessageType() {
    Key leader = Key.of("ns:players", new byte[] {0, 1, (byte) 0xff});
    Key member = Key.of("players", "alice");
    GroupRef g = new GroupRef(new GroupId("game-42", leader), new Uid(A, 77));
    Uid y = new Uid(B, 5);
    List<Message> messages = List.of(new Join(g, member), JoinAck.joined(g, member, y),
        JoinAck.refused(g, member, new GroupRef(new GroupId("other", member), new Uid(B, 3)),
            "row players/alice is in group other@players/alice"),
        new JoinAckAck(g, member, y), new Delete(g, member), new DeleteAck(g, member));
    return new Datagram(A, B, messages, List.of(Key.of("players", "moved")));
  }

  @Test
  void everyMessageTypeSurvivesARoundTrip() throws Exception {
    Datagram d = everyMessageType();
    byte[] bytes = codec.encode(d);
    assertThat(codec.decode(bytes, 0, bytes.length)).isEqualTo(d);
  }

  @Test
  void decodesFromAnOffsetInALargerBuffer() throws Exception {
    byte[] bytes = codec.encode(everyMessageType());
    byte[] buffer = new byte[bytes.length + 20];
    System.arraycopy(bytes, 0, buffer, 7, bytes.length);
    assertThat(codec.decode(buffer, 7, bytes.length)).isEqualTo(everyMessageType());
  }

  @Test
  void datagramFromAPeerWithAnotherSecretIsUnauthenticated() {
    byte[] forged = new DatagramCodec("another-secret-entirely!".getBytes(StandardCharsets.UTF_8), 60_000)
        .encode(everyMessageType());
    assertRejected(forged, Reason.UNAUTHENTICATED);
  }

  @Test
  void anyFlippedBitIsDetected() {
    byte[] bytes = codec.encode(everyMessageType());
    for (int i = 0; i < bytes.length; i++) {
      byte[] tampered = bytes.clone();
      tampered[i] ^= 0x10;
      assertThatThrownBy(() -> codec.decode(tampered, 0, tampered.length))
          .as("byte %d", i).isInstanceOf(DatagramRejectedException.class);
    }
  }

  @Test
  void truncatedDatagramIsRejected() {
    byte[] bytes = codec.encode(everyMessageType());
    for (int length : new int[] {0, 1, 3, 20, bytes.length - 1}) {
      assertThatThrownBy(() -> codec.decode(bytes, 0, length)).isInstanceOf(DatagramRejectedException.class);
    }
  }

  @Test
  void randomGarbageIsRejectedAsMalformedOrUnauthenticated() {
    Random r = new Random(42);
    for (int i = 0; i < 2_000; i++) {
      byte[] garbage = new byte[r.nextInt(300)];
      r.nextBytes(garbage);
      if (garbage.length > 2 && r.nextBoolean()) {
        garbage[0] = 'G';
        garbage[1] = 'S';
      }
      try {
        codec.decode(garbage, 0, garbage.length);
        throw new AssertionError("garbage accepted");
      } catch (DatagramRejectedException e) {
        assertThat(e.reason()).isIn(Reason.MALFORMED, Reason.UNAUTHENTICATED);
      }
    }
  }

  @Test
  void authenticBodyThatIsNotAValidDatagramIsMalformed() throws Exception {
    byte[] body = "not protobuf at all".getBytes(StandardCharsets.UTF_8);
    assertRejected(signed((byte) DatagramCodec.VERSION, body), Reason.MALFORMED);
  }

  @Test
  void datagramOfAnotherProtocolVersionIsRejected() throws Exception {
    byte[] good = codec.encode(everyMessageType());
    byte[] body = java.util.Arrays.copyOfRange(good, 3, good.length - 32);
    assertRejected(signed((byte) 9, body), Reason.UNKNOWN_VERSION);
  }

  /**
   * A rolling upgrade from a release speaking wire version 1 to one speaking 2 (and still 1): the new release takes
   * the old one's datagrams, and the old one takes the new one's while it is set to send version 1; only once
   * every server runs the new release may it send version 2.
   */
  @Test
  void aReleaseTakesThePreviousWireVersionAndSpeaksItWhileTold() throws Exception {
    DatagramCodec previous = new DatagramCodec(SECRET, null, 1, 1, 1, 60_000, 0, System::currentTimeMillis);
    DatagramCodec upgradedSpeakingOld = new DatagramCodec(SECRET, null, 1, 1, 2, 60_000, 0,
        System::currentTimeMillis);
    DatagramCodec upgraded = new DatagramCodec(SECRET, null, 2, 1, 2, 60_000, 0, System::currentTimeMillis);
    Datagram d = everyMessageType();

    byte[] fromPrevious = previous.encode(d);
    assertThat(upgraded.decode(fromPrevious, 0, fromPrevious.length)).isEqualTo(d);
    byte[] fromUpgradedSpeakingOld = upgradedSpeakingOld.encode(d);
    assertThat(previous.decode(fromUpgradedSpeakingOld, 0, fromUpgradedSpeakingOld.length)).isEqualTo(d);
    byte[] fromUpgraded = upgraded.encode(d);
    assertThat(upgradedSpeakingOld.decode(fromUpgraded, 0, fromUpgraded.length)).isEqualTo(d);
    assertRejected(previous, fromUpgraded, Reason.UNKNOWN_VERSION);
    assertThatThrownBy(() -> new DatagramCodec(SECRET, null, 3, 1, 2, 60_000, 0, System::currentTimeMillis))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wire version 3");
  }

  @Test
  void aFrameWhoseBodyClaimsAnotherVersionIsRejected() throws Exception {
    DatagramCodec upgraded = new DatagramCodec(SECRET, null, 2, 1, 2, 60_000, 0, System::currentTimeMillis);
    byte[] good = upgraded.encode(everyMessageType());
    byte[] body = java.util.Arrays.copyOfRange(good, 3, good.length - 32); // its body says version 2
    byte[] relabelled = signed((byte) 1, body);
    assertRejected(upgraded, relabelled, Reason.UNKNOWN_VERSION);
  }

  @Test
  void oversizedDatagramIsRejectedBeforeAnyWork() {
    DatagramCodec small = new DatagramCodec(SECRET, 100);
    byte[] big = codec.encode(everyMessageType());
    assertRejected(small, big, Reason.OVERSIZED);
    assertThatThrownBy(() -> small.encode(everyMessageType())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exceeds the maximum datagram size");
  }

  @Test
  void shortSecretIsRefused() {
    assertThatThrownBy(() -> new DatagramCodec(new byte[8], 1_000)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 16 bytes");
  }

  @Test
  void largeBatchesAreSplitIntoDatagramsUnderTheMaximumThatTogetherCarryEverything() throws Exception {
    DatagramCodec small = new DatagramCodec(SECRET, 1_200);
    GroupRef g = new GroupRef(new GroupId("big", Key.of("t", "leader")), new Uid(A, 1));
    List<Message> messages = new java.util.ArrayList<>();
    for (int i = 0; i < 200; i++) {
      messages.add(new Join(g, Key.of("t", "member-" + i)));
    }
    List<Key> notMine = List.of(Key.of("t", "gone-1"), Key.of("t", "gone-2"));
    List<byte[]> frames = small.encodeAll(new Datagram(A, B, messages, notMine));
    assertThat(frames).hasSizeGreaterThan(1);
    List<Message> carried = new java.util.ArrayList<>();
    List<Key> carriedNotMine = new java.util.ArrayList<>();
    for (byte[] bytes : frames) {
      assertThat(bytes.length).isLessThanOrEqualTo(1_200);
      Datagram back = small.decode(bytes, 0, bytes.length);
      carried.addAll(back.messages());
      carriedNotMine.addAll(back.notMine());
    }
    assertThat(carried).isEqualTo(messages);
    assertThat(carriedNotMine).isEqualTo(notMine);
    assertThat(codec.encodeAll(everyMessageType())).hasSize(1);
  }

  private byte[] signed(byte version, byte[] body) throws Exception {
    byte[] framed = new byte[3 + body.length + 32];
    framed[0] = 'G';
    framed[1] = 'S';
    framed[2] = version;
    System.arraycopy(body, 0, framed, 3, body.length);
    javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
    mac.init(new javax.crypto.spec.SecretKeySpec(ClusterKeys.derive(SECRET, ClusterKeys.DATAGRAMS), "HmacSHA256"));
    mac.update(framed, 0, 3 + body.length);
    System.arraycopy(mac.doFinal(), 0, framed, 3 + body.length, 32);
    return framed;
  }

  private void assertRejected(byte[] bytes, Reason reason) {
    assertRejected(codec, bytes, reason);
  }

  private static void assertRejected(DatagramCodec codec, byte[] bytes, Reason reason) {
    assertThatThrownBy(() -> codec.decode(bytes, 0, bytes.length))
        .isInstanceOfSatisfying(DatagramRejectedException.class, e -> assertThat(e.reason()).isEqualTo(reason));
  }

  @Test
  void anAuthenticDatagramSentOutsideTheFreshnessWindowIsStale() throws Exception {
    long[] now = {1_000_000};
    DatagramCodec sender = new DatagramCodec(SECRET, 60_000, 60_000, () -> now[0]);
    Datagram d = new Datagram(new NodeId("a"), new NodeId("b"), List.of(), List.of(Key.of("t", "r")));
    byte[] bytes = sender.encode(d);
    now[0] += 59_000;
    assertThat(sender.decode(bytes, 0, bytes.length)).isEqualTo(d);
    now[0] += 2_000; // a replay a minute later
    assertThatThrownBy(() -> sender.decode(bytes, 0, bytes.length)).isInstanceOf(DatagramRejectedException.class)
        .extracting(e -> ((DatagramRejectedException) e).reason()).isEqualTo(DatagramRejectedException.Reason.STALE);
    now[0] -= 2 * 61_000; // a sender whose clock runs far ahead
    assertThatThrownBy(() -> sender.decode(bytes, 0, bytes.length)).isInstanceOf(DatagramRejectedException.class);
    DatagramCodec noWindow = new DatagramCodec(SECRET, 60_000, 0, () -> now[0] + 3_600_000);
    assertThat(noWindow.decode(bytes, 0, bytes.length)).isEqualTo(d);
  }
}
