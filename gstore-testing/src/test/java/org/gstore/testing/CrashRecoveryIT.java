package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.io.UncheckedIOException;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.RowGroupedException;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.CommitRequest;
import org.gstore.common.wire.generated.GStoreProtos.CommitResponse;
import org.gstore.common.wire.generated.GStoreProtos.GStoreTxnService;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.GStoreProtos.TxnOutcomeProto;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.server.GStoreServers;
import org.gstore.recovery.ThresholdAlerts;
import org.gstore.recovery.LogId;
import org.gstore.recovery.hbase.RecoveryZnodes;
import org.gstore.recovery.hbase.WalRecovery;
import org.gstore.recovery.hbase.WalFiles;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A region server crashes (as kill -9 would: {@link GStoreMiniCluster#crashRegionServer}) holding acknowledged
 * commits it has not shipped: every commit is held 5 s in the shipper, so the crash finds them all in the WAL only.
 * The group serves again at its leader region's next host, from a state that has every acknowledged commit (the
 * dead server's WAL is replayed before), a commit retried across the crash gets its first outcome, and after the
 * group is deleted plain HBase reads see every commit with its original timestamp. Runs its own cluster.
 */
class CrashRecoveryIT {
  private static final TableName BANK = TableName.valueOf("crash_bank");
  private static final long OPENING_BALANCE = 1_000;
  private static GStoreMiniCluster cluster;
  private static GStoreClient client;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = GStoreMiniCluster.start(3, Map.of(GStoreConfig.SHIPPER_DELAY_MS, "5000",
        GStoreConfig.ALERT_SHIPPING_LAG_MS, "1000"));
    client = GStoreClient.create(cluster.getConfiguration());
    cluster.createTable(BANK, new byte[][] {Accounts.CF}, TestRows.splits(3)).close();
  }

  @AfterAll
  static void stopCluster() throws Exception {
    client.close();
    cluster.close();
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aLeaderCrashLosesNoAcknowledgedCommitAndARetriedCommitGetsItsFirstOutcome() throws Exception {
    List<byte[]> rows = TestRows.rows(0, 10); // over the three regions
    openAccounts(rows);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("survivor").leader(BANK, rows.get(0))
        .members(BANK, rows).build());
    // transfers between rows of different regions: a recovery that replays only some rows would tear them
    for (int n = 1; n <= 6; n++) {
      transfer(g, rows.get(n % 10), rows.get((n * 3 + 1) % 10), 10L * n);
    }
    // one more commit through the raw endpoint, to retry it byte for byte after the crash
    CommitRequest lastCommit = CommitRequest.newBuilder().setName("survivor").setLeader(key(rows.get(0)))
        .setTxnId("retried-across-the-crash").addWrites(RowWriteProto.newBuilder().setKey(key(rows.get(9)))
            .addColumns(ColumnProto.newBuilder().setFamily(ByteString.copyFrom(Accounts.CF))
                .setQualifier(ByteString.copyFromUtf8("note")).setValue(ByteString.copyFromUtf8("last"))))
        .build();
    CommitResponse first = commitRaw(rows.get(0), lastCommit);
    assertThat(first.getOutcome()).isEqualTo(TxnOutcomeProto.COMMITTED);
    Map<String, Long> acknowledged = balancesInGroup(g, rows);

    ServerName dead = cluster.crashRegionServer(serverIndexHosting(rows.get(0)));

    // the dead server's WAL held them all: nothing was shipped on its way down
    FileSystem fs = cluster.getTestingUtility().getTestFileSystem();
    Path walRoot = new Path(CommonFSUtils.getRootDir(cluster.getConfiguration()), "gstore-wal");

    // the group serves again at the leader region's next host, with every acknowledged commit
    assertThat(balancesInGroup(g, rows)).isEqualTo(acknowledged);
    assertThat(recoveredRecords(fs, walRoot, dead)).filteredOn(r -> r.getGroup().getName().equals("survivor"))
        .extracting(WalRecordProto::getTxnId).contains("retried-across-the-crash").hasSize(7);
    assertThat(fs.listStatus(walRoot)).extracting(d -> d.getPath().getName())
        .filteredOn(name -> LogId.serverOf(name).equals(dead.getServerName()) && !name.contains(WalRecovery.RECOVERED))
        .as("fenced and replayed").isEmpty();
    // a commit retried across the crash gets its first outcome, not a second application or a false conflict
    CommitResponse retried = commitRaw(rows.get(0), lastCommit);
    assertThat(retried.getOutcome()).isEqualTo(TxnOutcomeProto.COMMITTED);
    assertThat(retried.getCommitTs()).isEqualTo(first.getCommitTs());
    // rows stay fenced across the crash
    try (Table table = cluster.getConnection().getTable(BANK)) {
      assertThatThrownBy(() -> table.put(Accounts.balance(rows.get(3), -1)))
          .isInstanceOf(RowGroupedException.class);
      transfer(g, rows.get(1), rows.get(2), 1);
      g.delete();
      // after the delete, plain HBase reads see every commit, the retried one with its original timestamp
      long total = 0;
      for (byte[] row : rows) {
        total += Accounts.balance(table.get(new Get(row)));
      }
      assertThat(total).isEqualTo(OPENING_BALANCE * rows.size());
      Cell note = table.get(new Get(rows.get(9))).getColumnLatestCell(Accounts.CF, Bytes.toBytes("note"));
      assertThat(note).isNotNull();
      assertThat(note.getTimestamp()).isEqualTo(first.getCommitTs());
    }
    cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer(); // back to three for the next test
  }

  /**
   * Measures, in one run, how long after a leader's crash HBase serves the leader region's rows again (a plain
   * {@code Get} of an ungrouped row of that region) and how long until the group commits again (replay included),
   * polled side by side from the moment of the crash. Prints both for docs/recovery.md.
   */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aGroupCommitsAgainSoonAfterHBaseServesItsLeaderRegionAgain() throws Exception {
    List<byte[]> rows = TestRows.rows(100, 10);
    byte[] probe = TestRows.row(110); // same bucket as the leader row, so the same region; never grouped
    openAccounts(rows);
    try (Table table = cluster.getConnection().getTable(BANK)) {
      table.put(Accounts.balance(probe, 0));
    }
    KeyGroup g = client.createGroup(GroupSpec.builder().id("timed").leader(BANK, rows.get(0))
        .members(BANK, rows).build());
    for (int n = 1; n <= 20; n++) {
      transfer(g, rows.get(n % 10), rows.get((n + 3) % 10), n);
    }
    java.util.concurrent.ExecutorService pollers = java.util.concurrent.Executors.newFixedThreadPool(2);
    int leaderIndex = serverIndexHosting(rows.get(0));
    ServerName leaderHost = hostOf(rows.get(0));
    long crashedAt = System.nanoTime();
    var hbaseBack = pollers.submit(() -> millisUntil(crashedAt, () -> {
      try (Table table = cluster.getConnection().getTable(BANK)) {
        table.get(new Get(probe));
        return !hostOf(probe).equals(leaderHost); // served by the region's next host
      }
    }));
    var gstoreBack = pollers.submit(() -> millisUntil(crashedAt, () -> {
      transfer(g, rows.get(1), rows.get(2), 1);
      return !hostOf(rows.get(0)).equals(leaderHost);
    }));
    cluster.crashRegionServer(leaderIndex);
    long hbaseMillis = hbaseBack.get(2, TimeUnit.MINUTES);
    long gstoreMillis = gstoreBack.get(2, TimeUnit.MINUTES);
    pollers.shutdownNow();
    System.out.printf("recovery time: HBase served the leader region again after %d ms, the group committed again"
        + " after %d ms (G-Store adds %d ms)%n", hbaseMillis, gstoreMillis, gstoreMillis - hbaseMillis);
    assertThat(balancesInGroup(g, rows).values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(OPENING_BALANCE * rows.size());
    cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer();
  }

  /**
   * A delete writes its {@code DELETING} record while the group's last commits are still on their way to HBase (here
   * held 5 s by the shipper), but releases no row before they are there: a group that takes the rows over must load
   * every commit of the deleted one. Another client tries to group the rows all along, and whenever it succeeds it
   * must read the balances the deleted group committed, never the opening ones.
   */
  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aDeletedGroupsRowsAreReleasedOnlyOnceItsCommitsAreInHBase() throws Exception {
    List<byte[]> rows = TestRows.rows(200, 6); // over the three regions
    openAccounts(rows);
    KeyGroup deleted = client.createGroup(GroupSpec.builder().id("leaving").leader(BANK, rows.get(0))
        .members(BANK, rows).build());
    for (int n = 1; n < rows.size(); n++) {
      transfer(deleted, rows.get(n), rows.get(0), n); // unshipped for 5 s
    }
    Map<String, Long> committed = balancesInGroup(deleted, rows);
    assertThat(committed).isNotEqualTo(balancesInHBase(rows));

    var deleting = java.util.concurrent.CompletableFuture.runAsync(() -> {
      try {
        deleted.delete();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    KeyGroup next = null;
    int refusals = 0;
    while (next == null) { // every row of the group is refused until the delete releases it
      try {
        next = client.createGroup(GroupSpec.builder().id("arriving").leader(BANK, rows.get(1))
            .members(BANK, rows).build());
      } catch (org.gstore.client.GroupCreationException held) {
        refusals++;
      }
    }
    assertThat(balancesInGroup(next, rows)).as("the new group loads every commit of the deleted one")
        .isEqualTo(committed);
    deleting.get(1, TimeUnit.MINUTES);
    assertThat(refusals).as("rows refused while the deleted group's commits were being shipped").isPositive();
    next.delete();
    assertThat(balancesInHBase(rows)).isEqualTo(committed);
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void commitsThatStayUnshippedPastTheLimitRaiseAnAlertThatClearsOnceTheyShip() throws Exception {
    List<byte[]> rows = TestRows.rows(300, 3);
    openAccounts(rows);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("alerting").leader(BANK, rows.get(0))
        .members(BANK, rows).build());
    ServerName leader = TestRegions.hostOf(cluster, BANK, rows.get(0));
    ThresholdAlerts alerts = GStoreServers.on(leader).alerts();
    ZooKeeper zk = TestZooKeeper.session(cluster.getConfiguration());
    RecoveryZnodes znodes = new RecoveryZnodes(() -> zk,
        cluster.getTestingUtility().getZooKeeperWatcher().getZNodePaths().baseZNode, ZooDefs.Ids.OPEN_ACL_UNSAFE);

    // every commit is held 5 s (the shipper's test delay) and the limit is 1 s: a beat (every 5 s) sees the lag
    // a transfer at every poll keeps a commit waiting until the alert is seen
    Awaitility.await("the shipping alert").atMost(Duration.ofSeconds(12)).pollInterval(Duration.ofMillis(300))
        .until(() -> {
          transfer(g, rows.get(1), rows.get(2), 1);
          return alerts.isActive(ThresholdAlerts.Cause.SHIPPING_BLOCKED);
        });
    assertThat(alerts.active()).containsExactly(ThresholdAlerts.Cause.SHIPPING_BLOCKED);
    Awaitility.await("published for gstore status").atMost(Duration.ofSeconds(10))
        .until(() -> znodes.alerts().getOrDefault(leader.getServerName(), Set.of()).contains("SHIPPING_BLOCKED"));
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> alerts.active().isEmpty());
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !znodes.alerts().containsKey(leader.getServerName()));
    zk.close();
    g.delete();
  }

  /**
   * A transfer whose leader dies between its body and its commit, with a client whose HBase retries give up long
   * before the group serves again: the commit is sent again, with the same transaction id, until the next leader
   * answers. That leader knows it did not commit (nothing of it is in the replayed log), so {@code transact} runs
   * the body again, once, and the transfer takes effect exactly once.
   */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aTransferWhoseLeaderDiesBeforeItsCommitTakesEffectOnceThroughTransact() throws Exception {
    List<byte[]> rows = TestRows.rows(410, 2);
    openAccounts(rows);
    ServerName leader = TestRegions.hostOf(cluster, BANK, rows.get(0));
    AtomicInteger runs = new AtomicInteger();
    AtomicReference<CompletableFuture<ServerName>> crash = new AtomicReference<>();
    try (GStoreClient impatient = GStoreClient.create(TransactionsAcrossMovesIT.impatient(
        cluster.getConfiguration()))) {
      KeyGroup g = impatient.createGroup(GroupSpec.builder().id("dies-before-commit").leader(BANK, rows.get(0))
          .member(BANK, rows.get(1)).build());
      g.transact(txn -> {
        long from = Accounts.balance(txn.get(BANK, new Get(rows.get(0))));
        long to = Accounts.balance(txn.get(BANK, new Get(rows.get(1))));
        txn.put(BANK, Accounts.balance(rows.get(0), from - 7));
        txn.put(BANK, Accounts.balance(rows.get(1), to + 7));
        if (runs.incrementAndGet() == 1) {
          GStoreServers.crash(leader); // dead now; HBase learns it only once the region server is killed below
          crash.set(CompletableFuture.supplyAsync(() -> {
            try {
              return cluster.crashRegionServer(TestRegions.serverIndex(cluster, leader));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          }));
        }
        return null;
      });
      crash.get().get(2, TimeUnit.MINUTES);
      assertThat(runs).as("the first run's commit never happened: the next leader says so, and it runs again")
          .hasValue(2);
      g.delete();
    }
    assertThat(balancesInHBase(rows)).containsExactly(
        Map.entry(Bytes.toString(rows.get(0)), OPENING_BALANCE - 7), Map.entry(Bytes.toString(rows.get(1)),
            OPENING_BALANCE + 7));
    cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer(); // back to three for the next test
  }

  /**
   * Transfers through {@code transact} while the leader crashes, by a client whose HBase retries give up long
   * before the group serves again: its own commit retries carry the transfer in flight to the next leader, which
   * learns from the replayed log whether it committed. Each transfer takes effect exactly once.
   */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void transfersInFlightWhenTheLeaderCrashesTakeEffectExactlyOnce() throws Exception {
    List<byte[]> rows = TestRows.rows(400, 2);
    try (Table table = cluster.getConnection().getTable(BANK);
        GStoreClient impatient = GStoreClient.create(TransactionsAcrossMovesIT.impatient(
            cluster.getConfiguration()))) {
      table.put(Accounts.balance(rows.get(0), 1_000_000));
      table.put(Accounts.balance(rows.get(1), 0));
      KeyGroup g = impatient.createGroup(GroupSpec.builder().id("crash-transfers").leader(BANK, rows.get(0))
          .member(BANK, rows.get(1)).build());
      TransferStream.Counts counts;
      try (TransferStream transfers = new TransferStream(g, BANK, rows.get(0), rows.get(1))) {
        Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> transfers.returned() > 30);
        cluster.crashRegionServer(serverIndexHosting(rows.get(0)));
        long before = transfers.returned();
        Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> transfers.returned() > before + 30);
        counts = transfers.stop();
      }
      assertThat(counts.unknown()).as("every commit got its answer within the deadline").isZero();
      g.delete();
      assertThat(Accounts.balance(table.get(new Get(rows.get(1))))).as("each returned transfer applied once")
          .isEqualTo(counts.returned());
      assertThat(Accounts.balance(table.get(new Get(rows.get(0))))).isEqualTo(1_000_000 - counts.returned());
    }
    cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer(); // back to three for the next test
  }

  /**
   * A lease outlives its leader's crash with the expiry the dead leader made durable: the next leader neither
   * starts it again (which would lengthen it) nor takes it as lapsed on an empty clock (which would shorten it), and
   * deletes the group once that expiry passes, within one renewal interval (a third of the lease).
   */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aLeaderCrashDuringALeaseNeitherShortensNorLengthensIt() throws Exception {
    List<byte[]> rows = TestRows.rows(500, 2);
    openAccounts(rows);
    Duration lease = Duration.ofSeconds(30);
    GroupId id = new GroupId("leased-through-a-crash", Key.of(BANK.getNameAsString(), rows.get(0)));
    ServerName first = TestRegions.hostOf(cluster, BANK, rows.get(0));
    try (GStoreClient departing = GStoreClient.create(cluster.getConfiguration())) {
      KeyGroup g = departing.createGroup(GroupSpec.builder().id(id.name()).leader(BANK, rows.get(0))
          .member(BANK, rows.get(1)).lease(lease).build());
      transfer(g, rows.get(0), rows.get(1), 25);
    } // gone without deleting it: nobody renews the lease from now on
    Awaitility.await().atMost(Duration.ofSeconds(5))
        .until(() -> GStoreServers.on(first).leases().expiresAt(id) != null);
    long expiresAt = GStoreServers.on(first).leases().expiresAt(id);

    cluster.crashRegionServer(TestRegions.serverIndex(cluster, first));
    AtomicReference<ServerName> next = new AtomicReference<>();
    Awaitility.await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
        .ignoreExceptions().until(() -> {
          next.set(TestRegions.hostOf(cluster, BANK, rows.get(0)));
          return !next.get().equals(first) && GStoreServers.on(next.get()).leases().expiresAt(id) != null;
        });
    assertThat(GStoreServers.on(next.get()).leases().expiresAt(id))
        .as("the expiry the dead leader made durable").isEqualTo(expiresAt);

    try (Table table = cluster.getConnection().getTable(BANK)) {
      Awaitility.await().atMost(lease.plusSeconds(30)).pollInterval(Duration.ofMillis(200))
          .ignoreException(RowGroupedException.class).until(() -> {
            table.put(new Put(rows.get(1)).addColumn(Accounts.CF, Bytes.toBytes("probe"), Bytes.toBytes(1L)));
            return true;
          });
      long releasedAt = System.currentTimeMillis();
      assertThat(releasedAt).as("not before the lease lapsed").isGreaterThanOrEqualTo(expiresAt);
      assertThat(releasedAt - expiresAt).as("released within one renewal interval of the expiry")
          .isLessThanOrEqualTo(lease.toMillis() / 3);
      assertThat(Accounts.balance(table.get(new Get(rows.get(0))))).as("the commit before the crash is in HBase")
          .isEqualTo(OPENING_BALANCE - 25);
      assertThat(Accounts.balance(table.get(new Get(rows.get(1))))).isEqualTo(OPENING_BALANCE + 25);
    }
    cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer(); // back to three for the next test
  }

  private static void openAccounts(List<byte[]> rows) throws Exception {
    try (Table table = cluster.getConnection().getTable(BANK)) {
      for (byte[] row : rows) {
        table.put(Accounts.balance(row, OPENING_BALANCE));
      }
    }
  }

  private static Map<String, Long> balancesInHBase(List<byte[]> rows) throws Exception {
    Map<String, Long> balances = new java.util.TreeMap<>();
    try (Table table = cluster.getConnection().getTable(BANK)) {
      for (byte[] row : rows) {
        balances.put(Bytes.toString(row), Accounts.balance(table.get(new Get(row))));
      }
    }
    return balances;
  }

  /** Milliseconds from {@code since} until {@code served} first holds without throwing, polled every 20 ms. */
  private static long millisUntil(long since, java.util.concurrent.Callable<Boolean> served) {
    Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(20)).until(() -> {
      try {
        return served.call();
      } catch (Exception notYet) {
        return false;
      }
    });
    return (System.nanoTime() - since) / 1_000_000;
  }

  /** Where the client's last call for {@code row} went: its cached location, not a fresh lookup. */
  private static ServerName hostOf(byte[] row) throws java.io.IOException {
    try (RegionLocator locator = cluster.getConnection().getRegionLocator(BANK)) {
      return locator.getRegionLocation(row, false).getServerName();
    }
  }

  private static void transfer(KeyGroup g, byte[] from, byte[] to, long amount) throws Exception {
    Accounts.transfer(g, BANK, from, to, amount);
  }

  private static Map<String, Long> balancesInGroup(KeyGroup g, List<byte[]> rows) throws Exception {
    return g.transact(txn -> {
      Map<String, Long> balances = new java.util.TreeMap<>();
      for (byte[] row : rows) {
        balances.put(Bytes.toString(row), Accounts.balance(txn.get(BANK, new Get(row))));
      }
      return balances;
    });
  }

  private static List<WalRecordProto> recoveredRecords(FileSystem fs, Path walRoot, ServerName dead)
      throws Exception {
    List<WalRecordProto> records = new ArrayList<>();
    for (FileStatus dir : fs.listStatus(walRoot)) {
      String name = dir.getPath().getName();
      int recovered = name.indexOf(WalRecovery.RECOVERED);
      if (recovered > 0 && LogId.serverOf(name.substring(0, recovered)).equals(dead.getServerName())) {
        for (Path file : WalFiles.files(fs, dir.getPath())) {
          records.addAll(WalFiles.read(fs, file).records());
        }
      }
    }
    return records;
  }

  private static int serverIndexHosting(byte[] row) throws Exception {
    return TestRegions.serverIndex(cluster, TestRegions.hostOf(cluster, BANK, row));
  }

  private static CommitResponse commitRaw(byte[] leader, CommitRequest request) throws Exception {
    try (Table table = cluster.getConnection().getTable(BANK)) {
      return GStoreTxnService.newBlockingStub(table.coprocessorService(leader)).commit(null, request);
    }
  }

  private static KeyProto key(byte[] row) {
    return KeyProto.newBuilder().setTable(BANK.getNameAsString()).setRow(ByteString.copyFrom(row)).build();
  }
}
