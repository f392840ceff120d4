package org.gstore.common.protocol;

import java.util.ArrayList;
import java.util.List;
import org.gstore.common.protocol.log.Checkpoint;
import org.gstore.common.protocol.log.CheckpointQueue;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.common.protocol.log.ProtocolRecord;
import org.gstore.common.protocol.log.VersionClock;

/**
 * One node's protocol log in the simulation, around the production {@link CheckpointQueue} and {@link VersionClock}:
 * the records its incarnation made durable and its checkpoint marker, which survive a crash as a dead log for a
 * recovery to replay; and the queue and clock, which a crash loses.
 */
final class SimLog {
  /** A crashed incarnation's log: its durable records and the marker it had written. */
  record Dead(List<ProtocolRecord> records, long marker) {}

  private final List<ProtocolRecord> records = new ArrayList<>();
  private final List<Dead> unrecovered = new ArrayList<>();
  private long marker;
  private CheckpointQueue queue = new CheckpointQueue(0);
  private VersionClock clock = new VersionClock();

  /** One write's changes, stamped with one new version at the node's wall clock. */
  List<LoggedChange> stamp(List<StateChange> changes, long wallMillis) {
    return clock.stamp(changes, wallMillis);
  }

  /** The node loaded a row written at {@code version}: it writes that row only above it. */
  void observe(long version) {
    clock.observe(version);
  }

  /** Makes a write durable as one record. */
  void append(List<LoggedChange> changes) {
    ProtocolRecord r = queue.record(changes);
    records.add(r);
    queue.append(r);
  }

  /** The checkpoint of the oldest {@code max} pending records. */
  Checkpoint next(int max) {
    return queue.next(max);
  }

  int pending() {
    return queue.pending();
  }

  /** The checkpoint is written (or, with a planted defect, taken to be): the marker moves past it, durably. */
  void written(Checkpoint checkpoint) {
    queue.written(checkpoint);
    marker = queue.marker();
  }

  /**
   * The node crashed: its durable records and marker wait for a recovery, a new incarnation starts an empty log.
   * Returns what its checkpointer may have had in flight, to land late like a dead server's write.
   */
  Checkpoint crash() {
    Checkpoint inFlight = queue.next(Integer.MAX_VALUE);
    unrecovered.add(new Dead(List.copyOf(records), marker));
    records.clear();
    marker = 0;
    queue = new CheckpointQueue(0);
    clock = new VersionClock();
    return inFlight;
  }

  /** What a recovery writes: each dead log's records past its marker, collapsed. */
  List<Checkpoint> replay() {
    return unrecovered.stream().map(d -> Checkpoint.replay(d.records(), d.marker())).toList();
  }

  /** A recovery wrote {@link #replay} completely: the dead logs are done. */
  void recovered() {
    unrecovered.clear();
  }

  /** Whether a dead log of this node waits for a recovery. */
  boolean awaitsRecovery() {
    return !unrecovered.isEmpty();
  }
}
