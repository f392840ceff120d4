package org.gstore.common.protocol.log;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * One node's protocol records that are durable in its log but not yet known to be in the state tables, oldest
 * first, and its checkpoint marker: the sequence up to which every record is in the tables. The node's step writer
 * {@linkplain #append appends}; its checkpointer {@linkplain #next takes} a run of the oldest records, writes their
 * checkpoint, and reports it {@linkplain #written written}. The marker moves only over records whose every change
 * was written: a recovery replays what lies past it.
 *
 * <p>Thread-safe: the writer and the checkpointer run on different threads.
 */
public final class CheckpointQueue {
  private final Deque<ProtocolRecord> pending = new ArrayDeque<>();
  private long lastSequence;
  private long marker;

  /**
   * @param marker the marker this node starts from: the sequence its log continues after (0 for a new log)
   */
  public CheckpointQueue(long marker) {
    this.marker = marker;
    this.lastSequence = marker;
  }

  /** The record a write of {@code changes} makes, numbered after the last one; queue it with {@link #append}. */
  public synchronized ProtocolRecord record(List<LoggedChange> changes) {
    return new ProtocolRecord(++lastSequence, changes);
  }

  /** {@code record} is durable in the log: it waits for a checkpoint. Records must be appended in order. */
  public synchronized void append(ProtocolRecord record) {
    long expected = pending.isEmpty() ? marker + 1 : pending.peekLast().sequence() + 1;
    if (record.sequence() < expected) {
      throw new IllegalArgumentException("record " + record.sequence() + " appended after " + (expected - 1));
    }
    pending.addLast(record);
  }

  /**
   * The checkpoint of the oldest pending records, at most {@code maxRecords} of them (empty when none waits). They
   * stay pending until {@link #written}.
   */
  public synchronized Checkpoint next(int maxRecords) {
    List<ProtocolRecord> run = new ArrayList<>();
    for (ProtocolRecord r : pending) {
      if (run.size() == maxRecords) {
        break;
      }
      run.add(r);
    }
    return Checkpoint.of(run);
  }

  /** Every change of {@code checkpoint} is in the tables: its records leave the queue and the marker moves. */
  public synchronized void written(Checkpoint checkpoint) {
    while (!pending.isEmpty() && pending.peekFirst().sequence() <= checkpoint.upTo()) {
      pending.removeFirst();
    }
    marker = Math.max(marker, checkpoint.upTo());
  }

  /** Every record up to this sequence is in the tables. */
  public synchronized long marker() {
    return marker;
  }

  /** The sequence of the last record appended (the marker if none was since it started). */
  public synchronized long lastAppended() {
    return pending.isEmpty() ? marker : pending.peekLast().sequence();
  }

  /** How many durable records wait for a checkpoint. */
  public synchronized int pending() {
    return pending.size();
  }
}
