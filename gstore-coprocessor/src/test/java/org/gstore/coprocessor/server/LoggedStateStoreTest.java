package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.awaitility.Awaitility;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.log.Checkpoint;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Protocol state logged in a real {@link SharedWal} of two streams on the local file system, checkpointed into
 * tables kept in memory, and the log truncated as the heartbeat truncates it: what a recovery would replay from the
 * files left.
 */
@Timeout(60)
class LoggedStateStoreTest {
  private static final GStoreMetrics METRICS = new GStoreMetrics(MetricRegistries.global().create(
      new MetricRegistryInfo("LoggedStateStoreTest", "test", "test", "test", false)));

  private final ShipmentLedger ledger = new ShipmentLedger(true, 2, s -> { });
  private final List<LoggedChange> inTables = new CopyOnWriteArrayList<>();
  /** While set, checkpoints wait for the test to open it. */
  private volatile CountDownLatch tablesGate;
  private FileSystem fs;
  private Path root;
  private SharedWal wal;
  private LoggedStateStore store;

  @BeforeEach
  void open() throws Exception {
    fs = FileSystem.getLocal(new Configuration()).getRaw();
    root = new Path(Files.createTempDirectory("logged-state").toUri());
    // one record a file: every closed file can go as soon as nothing needs it
    wal = new SharedWal(fs, root, 2, 1, false, 60_000, new WalMetrics(MetricRegistries.global().create(
        new MetricRegistryInfo("LoggedStateStoreTest-wal", "test", "test", "test", false))), stopped -> { });
    // checkpoints only when flushed (the delay outlives the test), so the marks are exactly where the test says
    store = new LoggedStateStore("test", wal, ledger, new VersionClock(), changes -> {
      CountDownLatch gate = tablesGate;
      if (gate != null) {
        try {
          gate.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException();
        }
      }
      inTables.addAll(changes);
    }, 600_000, METRICS);
  }

  @AfterEach
  void close() {
    store.close();
    wal.close();
  }

  /**
   * Issue 35, item 6: records and checkpoint marks go round the streams, and marks were only logged, not held. A
   * stream pinned by an old record kept protocol records whose newer mark, in the other stream, was truncated
   * away; a replay then took an older mark for the last one and wrote checkpointed records again, which can revive
   * a row whose release tombstone was compacted away since.
   */
  @Test
  void theNewestCheckpointMarkOutlivesEveryRecordItCovers() throws Exception {
    // stream 0 keeps everything: a commit there is not persisted yet
    WalPosition commit = wal.appendProtocol(0, WalRecordProto.newBuilder().setCommitTs(1).setTxnId("t").build()
        .toByteArray()).get(10, TimeUnit.SECONDS);
    ledger.hold(commit);
    log("r1");
    log("r2");
    store.inTables().get(10, TimeUnit.SECONDS); // a mark through 2: stream 0
    tablesGate = new CountDownLatch(1); // a checkpoint racing the next records takes r3 at most: mark 3, stream 1
    log("r3");
    log("r4");
    log("r5");
    tablesGate.countDown();
    store.inTables().get(10, TimeUnit.SECONDS); // a mark through 5: stream 1
    Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> marks().contains(5L));
    assertThat(marks()).as("stream 0's newest mark is 2, and r4 follows it there").isSubsetOf(2L, 3L, 5L);
    int deleted = 0;
    for (int i = 0; i < 3; i++) {
      deleted += wal.truncate(ledger::walNeededAbove, 0);
    }
    assertThat(deleted).as("stream 1's checkpointed records went").isPositive();

    assertThat(replayed()).as("every record is in the tables: a replay writes none again").isEmpty();
  }

  /**
   * The held mark must not keep its stream for ever: with no protocol state written, no newer mark comes, and every
   * later file of its stream (commits among them) stayed (found by an attacker's review).
   */
  @Test
  void aHeldMarkWithNothingNewerIsLoggedAgainSoItsStreamCanBeTruncated() throws Exception {
    log("r1");
    store.inTables().get(10, TimeUnit.SECONDS); // a mark through 1: stream 1, held
    Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> marks().contains(1L));
    for (int i = 0; i < 5; i++) { // commits follow in stream 1, persisted since (nothing holds them)
      WalPosition p = wal.appendProtocol(1, WalRecordProto.newBuilder().setCommitTs(10 + i).setTxnId("c" + i).build()
          .toByteArray()).get(10, TimeUnit.SECONDS);
      ledger.logged(p);
    }
    long pinnedAt = ledger.walNeededAbove(1);
    store.relogMarkIfPinning();
    Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> ledger.walNeededAbove(1) > pinnedAt);
    wal.truncate(ledger::walNeededAbove, 0);
    assertThat(marks()).as("the mark, logged again after the commits, is still there").contains(1L);
    assertThat(replayed()).isEmpty();
    store.relogMarkIfPinning();
    assertThat(marks()).as("not logged again while nothing follows it").hasSize(1);
  }

  @Test
  void recordsNotCheckpointedYetStayInTheLogForAReplay() throws Exception {
    store.close(); // checkpointing stopped: what is logged stays in the WAL only
    log("r1");
    log("r2");
    for (int i = 0; i < 3; i++) {
      wal.truncate(ledger::walNeededAbove, 0);
    }
    assertThat(replayed()).hasSize(2);
    assertThat(inTables).isEmpty();
  }

  private void log(String row) throws Exception {
    store.write(List.of(new StateChange.RemoveOwner(Key.of("t", row))));
  }

  private List<WalRecordProto> records() throws Exception {
    List<WalRecordProto> records = new ArrayList<>();
    for (Path f : WalFiles.files(fs, root)) {
      records.addAll(WalFiles.read(fs, f).records());
    }
    return records;
  }

  private List<Long> marks() throws Exception {
    return records().stream().filter(r -> r.hasProtocol() && ProtocolRecordCodec.checkpointedThrough(r) > 0)
        .map(ProtocolRecordCodec::checkpointedThrough).toList();
  }

  /** What {@code ProtocolReplay} would write from the files left: the records past the newest mark found. */
  private List<LoggedChange> replayed() throws Exception {
    long marker = 0;
    List<ProtocolRecord> logged = new ArrayList<>();
    for (WalRecordProto r : records()) {
      if (r.hasProtocol() && ProtocolRecordCodec.checkpointedThrough(r) > 0) {
        marker = Math.max(marker, ProtocolRecordCodec.checkpointedThrough(r));
      } else if (r.hasProtocol()) {
        logged.add(ProtocolRecordCodec.decode(r));
      }
    }
    return Checkpoint.replay(logged, marker).changes();
  }
}
