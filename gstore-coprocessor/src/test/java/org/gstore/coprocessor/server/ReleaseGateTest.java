package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.Delete;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Join;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ReleaseGateTest {
  private static final NodeId SELF = new NodeId("leader");
  private static final NodeId A = new NodeId("a");
  private static final NodeId B = new NodeId("b");
  private static final GroupRef DELETING = group("deleting");
  private static final GroupRef OTHER = group("other");

  private final ReleaseGate gate = new ReleaseGate();

  private static GroupRef group(String name) {
    return new GroupRef(new GroupId(name, Key.of("t", name)), new Uid(SELF, 1));
  }

  private static Delete release(GroupRef group, String row) {
    return new Delete(group, Key.of("t", row));
  }

  private static Datagram to(NodeId to, org.gstore.common.protocol.Message... messages) {
    return new Datagram(SELF, to, List.of(messages), List.of());
  }

  @Test
  void withNothingHeldEveryDatagramPassesAsItIs() {
    Datagram d = to(A, release(DELETING, "r1"));
    assertThat(gate.pass(d)).isSameAs(d);
  }

  @Test
  void aHeldGroupsReleasesWaitForItsGateWhileEverythingElsePasses() {
    gate.hold(DELETING);
    Join join = new Join(OTHER, Key.of("t", "r9"));
    Datagram mixed = to(A, release(DELETING, "r1"), join, release(OTHER, "r2"));

    assertThat(gate.pass(mixed).messages()).containsExactly(join, release(OTHER, "r2"));
    assertThat(gate.pass(to(B, release(DELETING, "r3")))).as("nothing left to send").isNull();
    assertThat(gate.heldGroups()).isEqualTo(1);

    assertThat(gate.open(DELETING, SELF)).containsExactly(to(A, release(DELETING, "r1")),
        to(B, release(DELETING, "r3")));
    assertThat(gate.heldGroups()).isZero();
    Datagram after = to(A, release(DELETING, "r1"));
    assertThat(gate.pass(after)).as("open: retries pass").isSameAs(after);
  }

  @Test
  void aRetriedReleaseIsKeptOnceAndGoesWhereItsLatestCopyWent() {
    gate.hold(DELETING);
    gate.pass(to(A, release(DELETING, "r1"), release(DELETING, "r2")));
    gate.pass(to(B, release(DELETING, "r1"))); // r1 moved to B meanwhile

    assertThat(gate.open(DELETING, SELF)).containsExactly(to(A, release(DELETING, "r2")),
        to(B, release(DELETING, "r1")));
  }

  @Test
  void keysReportedNotMineStillReachTheirServerWhenEveryReleaseIsHeld() {
    gate.hold(DELETING);
    Datagram d = new Datagram(SELF, A, List.of(release(DELETING, "r1")), List.of(Key.of("t", "gone")));

    assertThat(gate.pass(d)).isEqualTo(new Datagram(SELF, A, List.of(), List.of(Key.of("t", "gone"))));
  }

  @Test
  void openingAGroupThatHeldNothingSendsNothing() {
    gate.hold(DELETING);
    assertThat(gate.open(DELETING, SELF)).isEmpty();
    assertThat(gate.open(OTHER, SELF)).isEmpty();
  }
}
