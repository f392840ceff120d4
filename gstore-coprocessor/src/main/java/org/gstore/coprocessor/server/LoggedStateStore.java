package org.gstore.coprocessor.server;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.WriteOrder;
import org.gstore.common.protocol.log.CheckpointQueue;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.common.protocol.log.ProtocolRecord;
import org.gstore.common.protocol.log.VersionClock;
import org.gstore.common.wal.WalFormat;
import org.gstore.common.wire.ProtocolRecordCodec;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.recovery.ShipmentLedger;
import org.gstore.recovery.WalPosition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Protocol state made durable in the shared WAL ({@code gstore.protocol.log=wal}): a step writer's batch of
 * changes is stamped with one version, appended as one protocol record, and durable once the WAL syncs it, in the
 * same group commit as the commits around it. The {@link StateCheckpointer} writes it to the state tables later;
 * until then the WAL keeps the record ({@link ShipmentLedger#hold}), and a recovery replays it into the tables
 * before any region loads state from them. A closing region's drain waits for {@link #inTables}.
 */
final class LoggedStateStore implements StepWriter.Store, java.io.Closeable {
  /** Bytes of one protocol record at most: well inside a WAL frame. */
  static final int MAX_RECORD_BYTES = WalFormat.MAX_PAYLOAD / 2;
  /** How long a stopping server waits for its logged protocol state to reach the tables. */
  static final long STOPPING_CHECKPOINT_MILLIS = 5_000;
  private static final Logger LOG = LoggerFactory.getLogger(LoggedStateStore.class);

  private final SharedWal wal;
  private final ShipmentLedger ledger;
  private final VersionClock clock;
  private final CheckpointQueue queue = new CheckpointQueue(0);
  private final StateCheckpointer checkpointer;
  /** Where each record not yet checkpointed lies in the WAL, by sequence. */
  private final ConcurrentSkipListMap<Long, WalPosition> positions = new ConcurrentSkipListMap<>();
  /** The newest checkpoint mark durable in the WAL, and its sequence: held there ({@link #markDurable}). */
  private WalPosition heldMark;
  private long heldMarkSequence;
  private final boolean holdNewestMark;

  /** @param checkpointDelayMillis see {@link StateCheckpointer} (tests) */
  LoggedStateStore(String name, SharedWal wal, ShipmentLedger ledger, VersionClock clock,
      StateCheckpointer.Tables tables, long checkpointDelayMillis, GStoreMetrics metrics) {
    this(name, wal, ledger, clock, tables, checkpointDelayMillis, metrics, true);
  }

  /**
   * @param holdNewestMark whether the newest durable checkpoint mark is held in the WAL ({@link #markDurable}); false
   *     only in the protocol-log simulation, which plants its absence (issue 35, item 6) and must catch it
   */
  LoggedStateStore(String name, SharedWal wal, ShipmentLedger ledger, VersionClock clock,
      StateCheckpointer.Tables tables, long checkpointDelayMillis, GStoreMetrics metrics, boolean holdNewestMark) {
    this.holdNewestMark = holdNewestMark;
    this.wal = wal;
    this.ledger = ledger;
    this.clock = clock;
    this.checkpointer = new StateCheckpointer(name, queue, tables, this::checkpointed, checkpointDelayMillis,
        metrics);
  }

  /**
   * Logs {@code changes} with one version: one record, or, should it not fit one WAL frame, several, phase by phase
   * ({@link WriteOrder}), each durable before the next is appended (so a crash leaves a prefix, as a torn write to
   * the tables would).
   */
  @Override
  public void write(List<StateChange> changes) throws IOException {
    List<LoggedChange> stamped = clock.stamp(changes, System.currentTimeMillis());
    ProtocolRecord whole = queue.record(stamped);
    byte[] encoded = ProtocolRecordCodec.encode(whole);
    if (encoded.length <= MAX_RECORD_BYTES) {
      append(whole, encoded);
      return;
    }
    Map<StateChange, LoggedChange> byChange = new IdentityHashMap<>();
    stamped.forEach(c -> byChange.put(c.change(), c));
    for (List<StateChange> phase : WriteOrder.phases(changes)) {
      for (List<LoggedChange> piece : pieces(phase.stream().map(byChange::get).toList())) {
        ProtocolRecord record = queue.record(piece);
        append(record, ProtocolRecordCodec.encode(record));
      }
    }
  }

  /** {@code changes} cut in halves until each fits a record. */
  private static List<List<LoggedChange>> pieces(List<LoggedChange> changes) {
    if (changes.size() <= 1
        || ProtocolRecordCodec.encode(new ProtocolRecord(1, changes)).length <= MAX_RECORD_BYTES) {
      return List.of(changes);
    }
    List<List<LoggedChange>> pieces = new ArrayList<>(pieces(changes.subList(0, changes.size() / 2)));
    pieces.addAll(pieces(changes.subList(changes.size() / 2, changes.size())));
    return pieces;
  }

  /** Appends one record and waits until it is durable; then it waits for its checkpoint. */
  private void append(ProtocolRecord record, byte[] encoded) throws IOException {
    WalPosition position;
    try {
      position = wal.appendProtocol(record.sequence(), encoded).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted logging protocol state");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (RuntimeException e) { // refused before it was appended: the writer retries, nothing is let out
      throw new IOException("G-Store could not log protocol state", e);
    }
    ledger.hold(position);
    positions.put(record.sequence(), position);
    queue.append(record);
    checkpointer.appended();
  }

  @Override
  public CompletableFuture<Void> inTables() {
    return checkpointer.flush();
  }

  @Override
  public long mark() {
    return queue.lastAppended();
  }

  @Override
  public boolean inTables(long mark) {
    return queue.marker() >= mark;
  }

  /**
   * Every record up to {@code sequence} is in the tables: the WAL need not keep them, and a mark saying so is
   * logged (not waited for), so that a replay does not write them again. A mark that is lost only makes a replay
   * write more, harmlessly while the rows' delete markers are kept; but the newest mark is held
   * ({@link #markDurable}), since records and marks go round the streams and an older record pinned in another
   * stream can outlive any number of them.
   */
  private void checkpointed(long sequence) {
    Map<Long, WalPosition> done = positions.headMap(sequence, true);
    done.values().forEach(ledger::release);
    done.clear();
    try {
      wal.appendProtocol(sequence, ProtocolRecordCodec.encodeCheckpointed(sequence))
          .thenAccept(position -> markDurable(sequence, position));
    } catch (RuntimeException e) {
      LOG.debug("G-Store could not log a checkpoint mark; a replay writes those records again", e);
    }
  }

  /**
   * The WAL keeps the newest durable checkpoint mark until a newer one is durable. A replay takes the newest mark
   * it finds: had that mark's file gone while a record it covers stayed in a stream pinned by something else (an
   * unpersisted commit), an older mark would win and checkpointed records would be written again, reviving a row
   * whose release tombstone was compacted away since.
   */
  private synchronized void markDurable(long sequence, WalPosition position) {
    // marks complete in any order across streams; a mark logged again (same sequence, same stream) is newer
    if (!holdNewestMark || sequence < heldMarkSequence || sequence == heldMarkSequence && heldMark != null
        && position.seq() <= heldMark.seq()) {
      ledger.logged(position);
      return;
    }
    ledger.hold(position);
    if (heldMark != null) {
      ledger.release(heldMark);
    }
    heldMark = position;
    heldMarkSequence = sequence;
  }

  /**
   * Logs the newest checkpoint mark again if the held one is the oldest record its stream keeps while later records
   * follow it: with no protocol state written for a while, no newer mark comes, and the held one would keep every
   * later file of its stream, the commits' included. Called at every heartbeat.
   */
  void relogMarkIfPinning() {
    WalPosition mark;
    long sequence;
    synchronized (this) {
      mark = heldMark;
      sequence = heldMarkSequence;
    }
    if (mark == null || !ledger.pinsRecordsAfter(mark)) {
      return;
    }
    try {
      wal.appendProtocol(sequence, ProtocolRecordCodec.encodeCheckpointed(sequence))
          .thenAccept(position -> markDurable(sequence, position));
    } catch (RuntimeException e) {
      LOG.debug("G-Store could not log its checkpoint mark again; the next heartbeat tries", e);
    }
  }

  /** Records in the WAL not yet in the tables. */
  int pending() {
    return checkpointer.pending();
  }

  /**
   * Stops checkpointing, after writing everything logged to the tables if {@code checkpointFirst} (a server that
   * stops, not one that crashes or aborts), for at most {@link #STOPPING_CHECKPOINT_MILLIS}. Returns whether all of
   * it is in the tables: if not, what is left stays in the WAL for a recovery, and the log must not be marked
   * closed cleanly.
   */
  boolean close(boolean checkpointFirst) {
    try {
      if (checkpointFirst) {
        inTables().get(STOPPING_CHECKPOINT_MILLIS, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("G-Store stops with protocol state not in its tables yet ({}); a recovery replays it", e.toString());
    } finally {
      close();
    }
    return checkpointFirst && pending() == 0;
  }

  /** Stops checkpointing: what is not in the tables stays in the WAL, for the next recovery. */
  @Override
  public void close() {
    checkpointer.close();
  }
}
