package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.coprocessor.wal.WalMetrics;
import org.gstore.coprocessor.wal.WalStoppedException;
import org.gstore.recovery.ClaimStore;
import org.gstore.recovery.LogId;
import org.gstore.recovery.hbase.RecoveryZnodes;
import org.gstore.recovery.hbase.WalFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance of G-Store's shared WAL and its standing in recovery: a {@link LogId} no earlier instance on the
 * server had, the server's registration in ZooKeeper, and on stop a WAL closed cleanly (nothing to replay) or left
 * for recovery, and the registration withdrawn.
 */
final class InstanceLog {
  private static final Logger LOG = LoggerFactory.getLogger(InstanceLog.class);

  private final String server;
  private final String log;
  private final SharedWal wal;
  private final RecoveryZnodes znodes;

  InstanceLog(String server, FileSystem fs, Path walRoot, GStoreConfig config, WalMetrics metrics,
      RecoveryZnodes znodes, Consumer<WalStoppedException> onStopped) throws IOException {
    this.server = server;
    this.znodes = znodes;
    this.log = newLog(fs, walRoot, server);
    this.wal = new SharedWal(fs, new Path(walRoot, log), config.walStreams(), config.walRollBytes(),
        config.walHsync(), config.walFailureStopMillis(), metrics, onStopped);
    if (config.protocolLogged()) { // before any protocol record: a recovery replays its protocol state first
      fs.create(new Path(new Path(walRoot, log), WalFiles.PROTOCOL_LOGGED), false).close();
    }
  }

  /**
   * A new {@link LogId} for this instance of G-Store on {@code server}: an earlier instance (G-Store stopped here
   * and started again) keeps its own, its directory is recovered like a dead server's, and claims made for its
   * shipments never cover this one's. Above every earlier instance whose directory is still there (live,
   * recovering, or recovered and kept for {@code gstore.recovery.retain.ms}), even after the clock stepped back
   * ({@link LogId#nextInstance}). What the last instance published as it stopped (its own instance plus one,
   * {@link #unregister}) is not read: ZooKeeper has no session for G-Store yet, so this reads HDFS alone. The new id
   * is at or above that mark whenever the last instance's directory is still there, and otherwise unless the clock
   * stepped back past the last instance's start since.
   */
  private static String newLog(FileSystem fs, Path walRoot, String server) throws IOException {
    List<String> earlier = new ArrayList<>();
    if (fs.exists(walRoot)) {
      for (FileStatus dir : fs.listStatus(walRoot)) {
        String name = dir.getPath().getName();
        int suffix = name.indexOf('.', name.lastIndexOf('#') + 1); // <log>.recovering, <log>.recovered-<time>
        earlier.add(suffix < 0 ? name : name.substring(0, suffix));
      }
    }
    return LogId.of(server, LogId.nextInstance(server, System.currentTimeMillis(), earlier));
  }

  /** This instance's {@link LogId}: its WAL directory under {@code gstore.wal.dir}, and its thresholds' name. */
  String log() {
    return log;
  }

  SharedWal wal() {
    return wal;
  }

  /**
   * Registers the server for recovery and names this instance's log as its current one (other servers may then
   * recover earlier instances' logs). Before any region here takes a write.
   */
  void register() throws IOException {
    znodes.register(server);
    znodes.publishFlushed(server, new ClaimStore.Flushed(log, -1));
  }

  /**
   * Closes the WAL: cleanly when every commit in it is persisted in HBase, so that the recovery of this log (by
   * the next instance here, or after this server dies) writes nothing again; abandoned, as a crash leaves it, if
   * {@code crashed}.
   */
  void close(boolean crashed, boolean persisted, long unpersisted) {
    if (crashed) {
      wal.abandon();
      return;
    }
    try {
      if (persisted) {
        wal.closeCleanly();
      } else {
        wal.close();
        LOG.info("G-Store stops with {} commits not yet persisted in HBase; its WAL {} is replayed before their"
            + " groups serve again", unpersisted, log);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("G-Store could not mark its WAL {} closed cleanly; it is replayed (idempotent) instead", log, e);
    }
  }

  /**
   * G-Store stopped here cleanly (every region it held closed, flushing its memstore): its claims must not hold
   * leaders back any longer (a live server that never claims again would pin every leader's threshold).
   */
  void unregister() {
    try {
      znodes.unregister(server);
      // no instance runs here now: any server may recover the logs of its instances up to this one
      // not the wall clock: a next instance whose clock stepped back below it would be taken for an earlier one
      znodes.publishFlushed(server, new ClaimStore.Flushed(LogId.of(server, LogId.instanceOf(log) + 1), -1));
    } catch (IOException | RuntimeException e) {
      LOG.warn("G-Store could not withdraw the persistence claims of {}; leaders hold their commits until it"
          + " claims again or dies", server, e);
    }
  }
}
