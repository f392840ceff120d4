package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.common.protocol.log.ProtocolRecord;
import org.gstore.common.protocol.log.VersionClock;
import org.gstore.common.wire.ProtocolRecordCodec;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.coprocessor.wal.WalMetrics;
import org.gstore.recovery.ShipmentLedger;
import org.gstore.recovery.WalPosition;
import org.gstore.recovery.hbase.WalFiles;

/**
 * One seeded schedule of protocol state logged in the shared WAL ({@code gstore.protocol.log=wal}) over several
 * streams: the production {@link LoggedStateStore} and {@link SharedWal} on a local file system, tables kept in
 * memory, commits that pin a stream for a while (held by the {@link ShipmentLedger} until persisted), the log
 * truncated as the heartbeat truncates it, marks logged again at heartbeats; then a crash, and what a replay would
 * write from the files left (the records past the newest checkpoint mark it finds, as {@code ProtocolReplay} does).
 *
 * <p>The promise (issue 35, item 6): nothing logged is lost (every record is in the tables or replayed), and a
 * replay never writes again a record that a checkpoint mark durable before the crash covers. Such a record reached
 * the tables long ago, and writing it again could revive a row whose release tombstone was compacted away since.
 * Every record changes a row of its own, so the tables tell exactly which records reached them.
 */
final class ProtocolLogSimulation {
  /** A bug planted by wiring the classes as a careless runtime would. */
  enum Defect {
    NONE,
    /** Checkpoint marks are logged but not held, as before issue 35: a pinned stream outlives the newest one. */
    MARKS_NOT_HELD
  }

  record Result(long seed, List<String> violations, int records, long newestMark, long replayMarker) {
    boolean ok() {
      return violations.isEmpty();
    }
  }

  private static final Configuration CONF = new Configuration();
  private static final WalMetrics WAL_METRICS = new WalMetrics(MetricRegistries.global()
      .create(new MetricRegistryInfo("ProtocolLogSimulation-wal", "test", "test", "test", false)));
  private static final GStoreMetrics METRICS = new GStoreMetrics(MetricRegistries.global()
      .create(new MetricRegistryInfo("ProtocolLogSimulation", "test", "test", "test", false)));

  private final long seed;
  private final Defect defect;
  private final Random rnd;
  private final List<String> trace = new ArrayList<>();
  /** Rows the tables hold: each is one record's. */
  private final Set<String> inTables = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final List<WalPosition> pins = new ArrayList<>();
  private FileSystem fs;
  private Path root;
  private long newestMark;

  ProtocolLogSimulation(long seed, Defect defect) {
    this.seed = seed;
    this.defect = defect;
    this.rnd = new Random(seed);
  }

  List<String> trace() {
    return trace;
  }

  Result run() throws Exception {
    fs = FileSystem.getLocal(CONF).getRaw();
    return org.gstore.coprocessor.ScratchDirectory.use("protocol-log-sim-" + seed, this::runIn);
  }

  private Result runIn(Path directory) throws Exception {
    root = directory;
    int streams = 2 + rnd.nextInt(2);
    long rollBytes = 1 + rnd.nextInt(400); // from a record a file to a few dozen
    ShipmentLedger ledger = new ShipmentLedger(true, streams, s -> { });
    SharedWal wal = new SharedWal(fs, root, streams, rollBytes, false, 60_000, WAL_METRICS, stopped -> { });
    LoggedStateStore store = new LoggedStateStore("sim", wal, ledger, new VersionClock(), changes -> {
      for (LoggedChange c : changes) {
        inTables.add(row(c));
      }
    }, 600_000, METRICS, defect != Defect.MARKS_NOT_HELD);
    trace.add(streams + " streams, rolled every " + rollBytes + " bytes");
    int records = 0;
    try {
      for (int step = 30 + rnd.nextInt(120); step > 0; step--) {
        int dice = rnd.nextInt(100);
        if (dice < 40) {
          records++;
          store.write(List.of(new StateChange.RemoveOwner(Key.of("t", "r" + records))));
        } else if (dice < 55) {
          store.inTables().get(30, TimeUnit.SECONDS);
          trace.add("checkpoint through record " + records);
        } else if (dice < 67) {
          int stream = rnd.nextInt(streams);
          WalPosition commit = wal.appendProtocol(stream, WalRecordProto.newBuilder().setCommitTs(step)
              .setTxnId("c" + step).build().toByteArray()).get(30, TimeUnit.SECONDS);
          ledger.hold(commit); // a commit not persisted yet: its stream keeps it, and everything after it
          pins.add(commit);
          trace.add("a commit pins stream " + stream + " at " + commit.seq());
        } else if (dice < 77 && !pins.isEmpty()) {
          WalPosition persisted = pins.remove(rnd.nextInt(pins.size()));
          ledger.release(persisted);
          trace.add("the commit at stream " + persisted.stream() + " record " + persisted.seq() + " is persisted");
        } else if (dice < 92) {
          noteNewestMark();
          int deleted = wal.truncate(ledger::walNeededAbove, 0);
          trace.add("truncate: " + deleted + " file(s) deleted");
        } else {
          store.relogMarkIfPinning();
        }
      }
    } finally {
      store.close(); // the crash: checkpoints stop, what is not in the tables stays in the WAL
      wal.abandon();
    }
    noteNewestMark();
    return check(records);
  }

  private Result check(int records) throws IOException {
    List<String> violations = new ArrayList<>();
    long marker = 0;
    List<ProtocolRecord> left = new ArrayList<>();
    for (WalRecordProto r : records()) {
      if (r.hasProtocol() && ProtocolRecordCodec.checkpointedThrough(r) > 0) {
        marker = Math.max(marker, ProtocolRecordCodec.checkpointedThrough(r));
      } else if (r.hasProtocol()) {
        left.add(ProtocolRecordCodec.decode(r));
      }
    }
    Set<String> replayed = new HashSet<>();
    for (ProtocolRecord r : left) {
      if (r.sequence() > marker) { // as Checkpoint.replay keeps them
        r.changes().forEach(c -> replayed.add(row(c)));
        if (r.sequence() <= newestMark) {
          violations.add("a replay writes record " + r.sequence() + " again, which the mark through " + newestMark
              + " covered before the crash (the newest mark left is " + marker + ")");
        }
      }
    }
    for (int i = 1; i <= records; i++) {
      if (!inTables.contains("r" + i) && !replayed.contains("r" + i)) {
        violations.add("record " + i + " is lost: neither in the tables nor replayed");
      }
    }
    trace.add("crash: newest mark " + newestMark + ", the replay finds " + marker + ", " + replayed.size()
        + " row(s) replayed");
    return new Result(seed, violations, records, newestMark, marker);
  }

  /** The newest checkpoint mark in the files now: the one a replay must not fall behind. */
  private void noteNewestMark() throws IOException {
    for (WalRecordProto r : records()) {
      if (r.hasProtocol()) {
        newestMark = Math.max(newestMark, ProtocolRecordCodec.checkpointedThrough(r));
      }
    }
  }

  private List<WalRecordProto> records() throws IOException {
    List<WalRecordProto> all = new ArrayList<>();
    for (Path f : WalFiles.files(fs, root)) {
      all.addAll(WalFiles.read(fs, f).records());
    }
    return all;
  }

  private static String row(LoggedChange c) {
    return Bytes.toString(((StateChange.RemoveOwner) c.change()).key().row());
  }
}
