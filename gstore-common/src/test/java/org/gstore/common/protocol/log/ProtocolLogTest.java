package org.gstore.common.protocol.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.StateChange;
import org.junit.jupiter.api.Test;

/** The protocol log's versions, checkpoints and marker, without a cluster (the simulator runs them under faults). */
class ProtocolLogTest {
  private static final StateChange FREE_A = new StateChange.RemoveOwner(Key.of("t", "a"));
  private static final StateChange FREE_B = new StateChange.RemoveOwner(Key.of("t", "b"));
  private static final StateChange UIDS = new StateChange.ReserveUids(new NodeId("n1"), 64);

  @Test
  void versionsGrowWhenTheWallClockStandsStillOrGoesBack() {
    VersionClock clock = new VersionClock();
    long first = clock.next(1_000);
    long second = clock.next(1_000);
    long third = clock.next(500);
    assertThat(first).isEqualTo(1_000);
    assertThat(second).isGreaterThan(first);
    assertThat(third).isGreaterThan(second);
  }

  @Test
  void aNodeWritesAboveEveryVersionItLoaded() {
    VersionClock clock = new VersionClock();
    clock.observe(9_000); // a row written by a server whose clock runs ahead
    assertThat(clock.next(1_000)).isGreaterThan(9_000);
  }

  @Test
  void oneWriteIsStampedWithOneVersion() {
    List<LoggedChange> stamped = new VersionClock().stamp(List.of(FREE_A, FREE_B), 42);
    assertThat(stamped).extracting(LoggedChange::version).containsExactly(42L, 42L);
  }

  @Test
  void onlyANewerVersionReplacesARow() {
    LoggedChange c = new LoggedChange(FREE_A, 10);
    assertThat(c.supersedes(0)).isTrue();
    assertThat(c.supersedes(9)).isTrue();
    assertThat(c.supersedes(10)).as("a record replayed twice changes nothing").isFalse();
    assertThat(c.supersedes(11)).as("a late write of an older version is hidden").isFalse();
  }

  @Test
  void aCheckpointKeepsTheNewestChangeOfEachRow() {
    LoggedChange oldA = new LoggedChange(FREE_A, 1);
    LoggedChange b = new LoggedChange(FREE_B, 2);
    LoggedChange newA = new LoggedChange(new StateChange.RemoveOwner(Key.of("t", "a")), 3);
    Checkpoint c = Checkpoint.of(List.of(new ProtocolRecord(1, List.of(oldA)), new ProtocolRecord(2, List.of(b)),
        new ProtocolRecord(3, List.of(newA))));
    assertThat(c.changes()).containsExactlyInAnyOrder(newA, b);
    assertThat(c.upTo()).isEqualTo(3);
  }

  @Test
  void aReplayWritesOnlyRecordsPastTheMarker() {
    LoggedChange a = new LoggedChange(FREE_A, 1);
    LoggedChange uids = new LoggedChange(UIDS, 2);
    Checkpoint replay = Checkpoint.replay(
        List.of(new ProtocolRecord(1, List.of(a)), new ProtocolRecord(2, List.of(uids))), 1);
    assertThat(replay.changes()).containsExactly(uids);
    assertThat(Checkpoint.replay(List.of(new ProtocolRecord(1, List.of(a))), 1).changes()).isEmpty();
  }

  @Test
  void theMarkerMovesOnlyOverRecordsReportedWritten() {
    CheckpointQueue queue = new CheckpointQueue(0);
    VersionClock clock = new VersionClock();
    ProtocolRecord first = queue.record(clock.stamp(List.of(FREE_A), 1));
    ProtocolRecord second = queue.record(clock.stamp(List.of(FREE_B), 2));
    queue.append(first);
    queue.append(second);

    Checkpoint oldest = queue.next(1);
    assertThat(oldest.upTo()).isEqualTo(first.sequence());
    assertThat(queue.marker()).as("taken, not yet written").isZero();
    assertThat(queue.pending()).isEqualTo(2);

    queue.written(oldest);
    assertThat(queue.marker()).isEqualTo(first.sequence());
    assertThat(queue.next(10).changes()).containsExactlyElementsOf(second.changes());
  }

  @Test
  void recordsAreAppendedInTheirOrder() {
    CheckpointQueue queue = new CheckpointQueue(0);
    ProtocolRecord first = queue.record(List.of(new LoggedChange(FREE_A, 1)));
    ProtocolRecord second = queue.record(List.of(new LoggedChange(FREE_B, 2)));
    queue.append(second);
    assertThatThrownBy(() -> queue.append(first)).isInstanceOf(IllegalArgumentException.class);
  }
}
