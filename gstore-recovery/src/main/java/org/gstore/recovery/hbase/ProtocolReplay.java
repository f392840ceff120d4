package org.gstore.recovery.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.common.protocol.log.Checkpoint;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.common.protocol.log.ProtocolRecord;
import org.gstore.common.wire.ProtocolRecordCodec;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first step of replaying a fenced log: the protocol state its server logged there before the state tables
 * ({@code gstore.protocol.log=wal}) past its last checkpoint mark is written to the tables, collapsed to the newest
 * version per row, and the log is marked {@link #REPLAYED}. Records before the mark are not written again: they
 * reached the tables long ago, perhaps before a release whose delete marker a major compaction has since dropped.
 * Regions load protocol state only once every log that may hold some is so marked
 * ({@link WalRecovery#replayProtocolState}), and this step runs before the commits' replay, so a commit's rows are
 * fenced by the time it is written. Versions make it idempotent: a record written before, by the dead server's
 * checkpointer or by an earlier replay, changes nothing.
 */
final class ProtocolReplay {
  /** A file in a fenced log's directory: its protocol records are in the state tables. */
  static final String REPLAYED = "protocol-replayed";
  private static final Logger LOG = LoggerFactory.getLogger(ProtocolReplay.class);

  private final FileSystem fs;
  private final Path root;
  private final ProtocolStateSink sink;
  private final RecoveryZnodes coordination;
  private final LogFencer fencer;
  private final long attemptMillis;
  private final ReplayWriter.Pause pause;

  ProtocolReplay(FileSystem fs, Path root, ProtocolStateSink sink, RecoveryZnodes coordination, LogFencer fencer,
      long attemptMillis, ReplayWriter.Pause pause) {
    this.fs = fs;
    this.root = root;
    this.sink = sink;
    this.coordination = coordination;
    this.fencer = fencer;
    this.attemptMillis = attemptMillis;
    this.pause = pause;
  }

  /**
   * Whether a dead log's protocol state is in the tables: it logged none, it is marked replayed or closed cleanly,
   * or the whole log was replayed.
   */
  boolean inTables(String log) throws IOException {
    Path original = new Path(root, log);
    Path fenced = new Path(root, log + WalRecovery.RECOVERING);
    return !fs.exists(new Path(original, WalFiles.PROTOCOL_LOGGED))
        && !fs.exists(new Path(fenced, WalFiles.PROTOCOL_LOGGED)) // logged none (or replayed meanwhile)
        || fs.exists(new Path(original, WalFiles.CLOSED_CLEANLY))
        || fs.exists(new Path(fenced, WalFiles.CLOSED_CLEANLY))
        || fs.exists(new Path(fenced, REPLAYED));
  }

  /**
   * Makes a dead log's protocol state be in the tables: under its lock, fences it and replays its protocol records;
   * or waits (at most the attempt time) for the pass that holds the lock, which writes them before its commits.
   */
  void ensureInTables(String log) throws IOException {
    long deadline = System.currentTimeMillis() + attemptMillis;
    while (!inTables(log)) {
      if (coordination.tryLock(log)) {
        try {
          List<Path> files = fencer.fence(log);
          Path fenced = new Path(root, log + WalRecovery.RECOVERING);
          if (files != null && !fs.exists(new Path(fenced, WalFiles.CLOSED_CLEANLY))) {
            int rows = replay(fenced, files);
            LOG.info("G-Store wrote the logged protocol state of dead log {} to its tables: {} rows", log, rows);
          }
          return;
        } finally {
          coordination.unlock(log);
        }
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("another region server has been replaying it for over " + attemptMillis + " ms");
      }
      pause.pause(200);
    }
  }

  /**
   * Writes the protocol records of the fenced log {@code fenced} (whose {@code files} no writer can add to any
   * more) past its last checkpoint mark to the state tables and marks it, unless it is marked already. Returns the
   * rows written. Called under the log's lock.
   */
  int replay(Path fenced, List<Path> files) throws IOException {
    if (fs.exists(new Path(fenced, REPLAYED))) {
      return 0;
    }
    List<ProtocolRecord> records = new ArrayList<>();
    long marker = 0;
    for (Path f : files) {
      for (WalRecordProto r : WalFiles.readForReplay(fs, f)) {
        if (r.hasProtocol() && ProtocolRecordCodec.checkpointedThrough(r) > 0) {
          marker = Math.max(marker, ProtocolRecordCodec.checkpointedThrough(r));
        } else if (r.hasProtocol()) {
          records.add(ProtocolRecordCodec.decode(r));
        }
      }
    }
    List<LoggedChange> changes = Checkpoint.replay(records, marker).changes();
    if (!changes.isEmpty()) {
      sink.write(changes);
    }
    // not recursive: a pass that lost its lock must not bring back a directory another pass finished
    fs.createNonRecursive(new Path(fenced, REPLAYED), true, 4096, fs.getDefaultReplication(fenced),
        fs.getDefaultBlockSize(fenced), null).close();
    return changes.size();
  }
}
