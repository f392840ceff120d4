package org.gstore.recovery.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.recovery.LogId;
import org.gstore.recovery.OutageStep;
import org.gstore.recovery.ReplayFilter;
import org.gstore.recovery.Shipment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One dead log's replay, steps 1 to 4 of {@link WalRecovery}, run by its caller under the log's recovery lock:
 * fence the log, replay its protocol state, write every commit after its group's last persisted mark, and mark the
 * log recovered. Logged as an {@link OutageStep.Kind#WAL_REPLAY} step.
 *
 * <p>A group whose commits HBase refuses for good stops only itself: the commits of every other group are written
 * and marked ({@link ReplayedGroups}), so that their regions open, and the log stays fenced until the stopped
 * groups' commits are taken.
 */
final class LogReplay {
  private static final Logger LOG = LoggerFactory.getLogger(LogReplay.class);
  /** Commits written to HBase in one call. */
  private static final int BATCH = 500;

  /** What a replay wrote: commits written to HBase, and those skipped because their rows left the group. */
  record Counts(long written, long skipped) {}

  private final FileSystem fs;
  private final Path root;
  private final String selfServer;
  private final RecoveryZnodes coordination;
  private final ReplayWriter writer;
  private final ProtocolReplay protocol;
  private final LogFencer fencer;
  private final FencedLogs fencedLogs;

  LogReplay(FileSystem fs, Path root, String selfServer, RecoveryZnodes coordination, ReplayWriter writer,
      ProtocolReplay protocol, LogFencer fencer, FencedLogs fencedLogs) {
    this.fs = fs;
    this.root = root;
    this.selfServer = selfServer;
    this.coordination = coordination;
    this.writer = writer;
    this.protocol = protocol;
    this.fencer = fencer;
    this.fencedLogs = fencedLogs;
  }

  /**
   * Replays the log of {@code server}, whose recovery lock the caller holds: what it wrote, or null when there was
   * no log left to replay (another server recovered it first).
   */
  Counts replay(String server) throws IOException {
    OutageStep step = OutageStep.start(OutageStep.Kind.WAL_REPLAY, selfServer, LogId.serverOf(server), server);
    try {
      Counts counts = replayFenced(server);
      step.end(counts != null ? "written=" + counts.written() : "nothing");
      return counts;
    } catch (IOException | RuntimeException e) {
      step.failed(e);
      throw e;
    }
  }

  private Counts replayFenced(String server) throws IOException {
    long start = System.currentTimeMillis();
    List<Path> files = fencer.fence(server);
    if (files == null) {
      return null;
    }
    Path fenced = new Path(root, server + WalRecovery.RECOVERING);
    long replayed = 0;
    long skipped = 0;
    // an instance that stopped cleanly with nothing held had every commit persisted in HBase and every protocol
    // record in the state tables: nothing to write
    boolean persisted = fs.exists(new Path(fenced, WalFiles.CLOSED_CLEANLY));
    if (!persisted && fs.exists(new Path(fenced, WalFiles.PROTOCOL_LOGGED))) {
      protocol.replay(fenced, files);
    }
    ReplayFilter filter = filter(fs, fenced, files);
    Map<GroupRef, String> stopped = new LinkedHashMap<>();
    Map<GroupRef, Long> written = new HashMap<>();
    long index = 0;
    for (Path f : files) {
      List<Shipment> batch = new ArrayList<>();
      for (WalRecordProto r : WalFiles.readForReplay(fs, f)) {
        long at = index++;
        if (persisted || !filter.replays(at, r)) {
          continue;
        }
        batch.add(new Shipment(DatagramCodec.fromProto(r.getGroup()), r.getCommitTs(), r.getTxnId(),
            r.getWritesList(), null));
        if (batch.size() == BATCH) {
          checkLockHeld(server);
          skipped += writer.write(batch, stopped);
          replayed += noteWritten(batch, stopped, written);
          batch.clear();
        }
      }
      if (!batch.isEmpty()) {
        checkLockHeld(server);
      }
      skipped += writer.write(batch, stopped);
      replayed += noteWritten(batch, stopped, written);
    }
    if (!stopped.isEmpty()) {
      // the other groups' commits are in HBase: marked, so that their regions open and no later attempt writes
      // them again; the stopped groups hold the log (and only their own regions) until HBase takes their commits
      stopped.keySet().forEach(written::remove);
      checkLockHeld(server);
      ReplayedGroups.write(fs, fenced, written);
      fencedLogs.forget(server);
      throw new IOException("HBase refuses commits of " + stopped.size() + " of its groups for good ("
          + stopped.entrySet().iterator().next() + (stopped.size() > 1 ? ", ..." : "") + "); the log is kept and"
          + " replayed once the cause is fixed, and meanwhile only the regions leading those groups wait");
    }
    Path done = new Path(root, server + WalRecovery.RECOVERED + System.currentTimeMillis());
    if (!fs.rename(fenced, done)) {
      throw new IOException("cannot mark the G-Store WAL of " + server + " recovered (rename to " + done + ")");
    }
    LOG.info("G-Store replayed the WAL of dead server {}: {} files, {} commits written, {} skipped (rows no longer"
        + " in their group), in {} ms", server, files.size(), replayed - skipped, skipped,
        System.currentTimeMillis() - start);
    return new Counts(replayed - skipped, skipped);
  }

  /**
   * Which records of the fenced log a replay writes: those after their group's last persisted mark, in the log or
   * kept beside it by an earlier attempt ({@link ReplayedGroups}).
   */
  static ReplayFilter filter(FileSystem fs, Path fenced, List<Path> files) throws IOException {
    ReplayFilter filter = new ReplayFilter();
    long index = 0;
    for (Path f : files) {
      for (WalRecordProto r : WalFiles.readForReplay(fs, f)) {
        filter.observe(index++, r);
      }
    }
    for (WalRecordProto mark : ReplayedGroups.read(fs, fenced)) {
      filter.observe(Long.MAX_VALUE, mark); // after every record of the log
    }
    return filter;
  }

  /**
   * Fails if this server's lock of the log lapsed (its ZooKeeper session expired): another server may replay the
   * log now and let groups serve, whose old commits this one must not write after. Checked once a batch; a write
   * in flight as the session expires is not fenced by it.
   */
  private void checkLockHeld(String server) throws IOException {
    if (!coordination.holdsLock(server)) {
      throw new IOException("lost the replay lock of " + server + " (ZooKeeper session expired); another server"
          + " replays it");
    }
  }

  /** Notes the newest commit written of each group in {@code batch} but the stopped; returns how many those are. */
  private static long noteWritten(List<Shipment> batch, Map<GroupRef, String> stopped, Map<GroupRef, Long> written) {
    long count = 0;
    for (Shipment s : batch) {
      if (!stopped.containsKey(s.group())) {
        written.merge(s.group(), s.commitTs(), Math::max);
        count++;
      }
    }
    return count;
  }
}
