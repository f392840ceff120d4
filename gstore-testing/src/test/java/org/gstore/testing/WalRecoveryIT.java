package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gstore.testing.DeadServerLogs.group;
import static org.gstore.testing.DeadServerLogs.openWal;
import static org.gstore.testing.DeadServerLogs.record;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wal.WalFormat;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.OwnerToken;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.recovery.hbase.RecoveryZnodes;
import org.gstore.recovery.hbase.OutcomeTable;
import org.gstore.recovery.hbase.WalRecovery;
import org.gstore.recovery.hbase.CommitApplier;
import org.gstore.recovery.hbase.DepartureFencing;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.recovery.hbase.WalFiles;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The replay of a dead server's WAL against its two hazards: the dead server still running (a zombie), and the
 * server replaying it dying part-way. The dead servers here are G-Store WALs written through their own HDFS clients,
 * as separate processes would; the recoveries run as region servers run them, each with its own ZooKeeper session.
 */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class WalRecoveryIT {
  private static final GroupRef ZOMBIES_GROUP = group("zombies-group");
  private static final GroupRef DEAD_SERVERS_GROUP = group("dead-servers-group");

  /** G-Store's tables, which the master creates as it starts: this class may run first in its JVM. */
  @BeforeEach
  void tablesExist(GStoreMiniCluster cluster) throws IOException {
    org.gstore.coprocessor.server.StateTables.ensureExist(cluster.getConnection());
  }

  @Test
  void aRecoveryFencesADeadServersWalSoItsZombieAcknowledgesNothingMore(GStoreMiniCluster cluster)
      throws Exception {
    Configuration conf = cluster.getConfiguration();
    Path root = GStoreConfig.walRoot(conf);
    String zombie = "zombie.example.com,16020,1"; // never a live region server
    try (FileSystem zombieFs = FileSystem.newInstance(root.toUri(), conf);
        FileSystem recoveryFs = FileSystem.newInstance(root.toUri(), conf)) {
      SharedWal wal = openWal(zombieFs, root, zombie);
      ZooKeeper zk = TestZooKeeper.session(conf);
      try {
        wal.append(ZOMBIES_GROUP, record(ZOMBIES_GROUP, "acknowledged-1", null)).get(30, TimeUnit.SECONDS);
        wal.append(ZOMBIES_GROUP, record(ZOMBIES_GROUP, "acknowledged-2", null)).get(30, TimeUnit.SECONDS);

        WalRecovery recovery = recovery(cluster, recoveryFs, zk);
        WalRecovery.Pass pass = recovery.recoverDeadServers();

        assertThat(pass.serversRecovered()).isPositive();
        assertThat(recorded(cluster, ZOMBIES_GROUP, "acknowledged-1")).isTrue();
        assertThat(recorded(cluster, ZOMBIES_GROUP, "acknowledged-2")).isTrue();
        assertThat(recoveryFs.exists(new Path(root, zombie))).as("renamed away").isFalse();
        // the zombie's next commit fails in its current file (lease and blocks taken over) and in a new one (its
        // directory is gone): it acknowledges nothing the recovery did not read
        for (String txn : new String[] {"too-late-1", "too-late-2"}) {
          assertThatThrownBy(() -> wal.append(ZOMBIES_GROUP, record(ZOMBIES_GROUP, txn, null)).get(60, TimeUnit.SECONDS))
              .isInstanceOf(ExecutionException.class);
        }
        assertThat(recoveryFs.exists(new Path(root, zombie))).as("no new directory either").isFalse();
        assertThat(recorded(cluster, ZOMBIES_GROUP, "too-late-1")).isFalse();
      } finally {
        wal.abandon();
        zk.close();
      }
    }
  }

  /**
   * A server's log is fenced as soon as the server leaves ZooKeeper's live set, before any region of it opens and
   * asks for the replay: its HDFS lease recovery runs beside HBase's own WAL split instead of after it. Fencing alone
   * writes nothing; the replay that follows reads the fenced log whole.
   */
  @Test
  void aDepartedServersLogIsFencedAtOnceAndItsReplayLaterReadsItWhole(GStoreMiniCluster cluster) throws Exception {
    Configuration conf = cluster.getConfiguration();
    Path root = GStoreConfig.walRoot(conf);
    String departed = "departed.example.com,16020,7"; // never a live region server
    GroupRef group = group("departed-group");
    try (FileSystem departedFs = FileSystem.newInstance(root.toUri(), conf);
        FileSystem recoveryFs = FileSystem.newInstance(root.toUri(), conf)) {
      SharedWal wal = openWal(departedFs, root, departed);
      ZooKeeper zk = TestZooKeeper.session(conf);
      try {
        wal.append(group, record(group, "before-fence", null)).get(30, TimeUnit.SECONDS);
        WalRecovery recovery = recovery(cluster, recoveryFs, zk);
        String parent = cluster.getTestingUtility().getZooKeeperWatcher().getZNodePaths().baseZNode;

        new DepartureFencing(new RecoveryZnodes(() -> zk, parent, ZooDefs.Ids.OPEN_ACL_UNSAFE), recovery).run();

        Path fenced = new Path(root, departed + WalRecovery.RECOVERING);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> allClosed(recoveryFs, fenced));
        assertThat(recoveryFs.exists(new Path(root, departed))).isFalse();
        assertThatThrownBy(() -> wal.append(group, record(group, "after-fence", null)).get(60, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class);
        assertThat(recorded(cluster, group, "before-fence")).as("fencing writes nothing").isFalse();

        recovery.recoverDeadServers();
        assertThat(recorded(cluster, group, "before-fence")).isTrue();
        assertThat(recorded(cluster, group, "after-fence")).isFalse();
      } finally {
        wal.abandon();
        zk.close();
      }
    }
  }

  @Test
  void aServerThatDiesReplayingLeavesTheReplayToTheNext(GStoreMiniCluster cluster) throws Exception {
    Configuration conf = cluster.getConfiguration();
    Path root = GStoreConfig.walRoot(conf);
    String dead = "dead.example.com,16020,3";
    TableName stalled = TableName.valueOf("replay_stalls");
    cluster.createTable(stalled, new byte[][] {Bytes.toBytes("a")}, null).close();
    try (FileSystem deadFs = FileSystem.newInstance(root.toUri(), conf);
        FileSystem recoveryFs = FileSystem.newInstance(root.toUri(), conf);
        Admin admin = cluster.getConnection().getAdmin()) {
      SharedWal wal = openWal(deadFs, root, dead);
      wal.append(DEAD_SERVERS_GROUP, record(DEAD_SERVERS_GROUP, "in-the-dead-wal", stalled))
          .get(30, TimeUnit.SECONDS);
      wal.abandon();
      admin.disableTable(stalled); // the first replay cannot write: it retries until it dies

      ZooKeeper first = TestZooKeeper.session(conf);
      WalRecovery dying = recovery(cluster, recoveryFs, first);
      CompletableFuture<WalRecovery.Pass> firstPass = CompletableFuture.supplyAsync(() -> {
        try {
          return dying.recoverDeadServers();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      Awaitility.await().atMost(Duration.ofSeconds(30))
          .until(() -> recoveryFs.exists(new Path(root, dead + WalRecovery.RECOVERING)));
      dying.close(); // it dies: its replay stops and its lock goes with its ZooKeeper session
      first.close();
      assertThatThrownBy(() -> firstPass.get(30, TimeUnit.SECONDS)).hasRootCauseInstanceOf(IOException.class);

      // the next pass, ours or a region server's (the table's region reopening runs one), takes the fenced
      // directory over and finishes the replay
      admin.enableTable(stalled);
      ZooKeeper second = TestZooKeeper.session(conf);
      try {
        WalRecovery next = recovery(cluster, recoveryFs, second);
        next.recoverDeadServers();
        assertThat(recoveryFs.exists(new Path(root, dead + WalRecovery.RECOVERING))).isFalse();
        assertThat(recorded(cluster, DEAD_SERVERS_GROUP, "in-the-dead-wal")).isTrue();
        boolean replayed = false;
        for (FileStatus dir : recoveryFs.listStatus(root)) {
          replayed |= dir.getPath().getName().startsWith(dead + WalRecovery.RECOVERED);
        }
        assertThat(replayed).isTrue();
      } finally {
        second.close();
      }
    }
  }

  @Test
  void aCorruptRecordBeforeTheTailStopsTheReplayLoudlyInsteadOfSkippingWhatFollows(GStoreMiniCluster cluster)
      throws Exception {
    Configuration conf = cluster.getConfiguration();
    Path root = GStoreConfig.walRoot(conf);
    String dead = "corrupt.example.com,16020,4";
    GroupRef group = group("corrupt-wal-group");
    Path dir = new Path(root, dead);
    try (FileSystem fs = FileSystem.newInstance(root.toUri(), conf)) {
      byte[] second = WalFormat.frame(record(group, "acknowledged-2", null));
      second[second.length - 1] ^= 0x01; // a complete record that no longer reads back
      try (var out = fs.create(new Path(new Path(dir, "stream-0"), String.format("%020d.wal", 1)))) {
        out.write(WalFormat.frame(record(group, "acknowledged-1", null)));
        out.write(second);
        out.write(WalFormat.frame(record(group, "acknowledged-3", null)));
      }
      ZooKeeper zk = TestZooKeeper.session(conf);
      try {
        WalRecovery recovery = recovery(cluster, fs, zk);
        assertThatThrownBy(recovery::recoverDeadServers).isInstanceOf(WalFiles.CorruptWalException.class)
            .hasMessageContaining("checksum mismatch").hasMessageContaining("after 1 records");
        assertThat(fs.exists(new Path(root, dead + WalRecovery.RECOVERING))).as("left fenced, not marked done")
            .isTrue();
        assertThat(recorded(cluster, group, "acknowledged-1")).as("nothing replayed before the corruption is found")
            .isFalse();
      } finally {
        zk.close();
        // the region servers of this shared cluster run recovery passes too: they must not wait on it after us
        fs.delete(new Path(root, dead + WalRecovery.RECOVERING), true);
        fs.delete(dir, true);
      }
    }
  }

  @Test
  void aLogThatCannotBeReplayedYetHoldsBackOnlyTheRegionsThatLeadItsGroups(GStoreMiniCluster cluster)
      throws Exception {
    Configuration conf = cluster.getConfiguration();
    Path root = GStoreConfig.walRoot(conf);
    TableName disabled = TableName.valueOf("replay_blocked");
    cluster.createTable(disabled, new byte[][] {Bytes.toBytes("a")}, null).close();
    GroupRef stuck = new GroupRef(new GroupId("stuck", Key.of("t", "stuck-leader")), new Uid(new NodeId("d"), 1));
    GroupRef fine = new GroupRef(new GroupId("fine", Key.of("t", "fine-leader")), new Uid(new NodeId("d"), 2));
    String stuckServer = "stuck.example.com,16020,5";
    try (FileSystem deadFs = FileSystem.newInstance(root.toUri(), conf);
        FileSystem recoveryFs = FileSystem.newInstance(root.toUri(), conf);
        Admin admin = cluster.getConnection().getAdmin()) {
      SharedWal stuckWal = openWal(deadFs, root, stuckServer);
      stuckWal.append(stuck, record(stuck, "into-a-disabled-table", disabled)).get(30, TimeUnit.SECONDS);
      stuckWal.close(); // closed files: no lease to recover, which this test's short attempts would not wait for
      SharedWal fineWal = openWal(deadFs, root, "fine.example.com,16020,6");
      fineWal.append(fine, record(fine, "replayable", null)).get(30, TimeUnit.SECONDS);
      fineWal.close();
      admin.disableTable(disabled);
      ZooKeeper zk = TestZooKeeper.session(conf);
      try {
        WalRecovery recovery = recovery(cluster, recoveryFs, zk, 1_000);
        // a region that leads only the fine group serves once its log is replayed, the stuck log notwithstanding
        recovery.recoverDeadServers(fine.id().leader()::equals);
        assertThat(recorded(cluster, fine, "replayable")).isTrue();
        // the stuck group's region waits, and is told which log it waits for
        assertThatThrownBy(() -> recovery.recoverDeadServers(stuck.id().leader()::equals))
            .isInstanceOf(IOException.class).hasMessageContaining(stuckServer);
        assertThat(recorded(cluster, stuck, "into-a-disabled-table")).as("it committed: its outcome is recorded"
            + " before its writes, which wait for the table").isTrue();

        admin.enableTable(disabled); // the cause is gone: a pass replays it once the table's region serves
        // (an attempt is 1 s here: one made while the region still opens gives up, as in production, and the next
        // pass tries again)
        Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
            .untilAsserted(() -> recovery.recoverDeadServers(stuck.id().leader()::equals));
        assertThat(recorded(cluster, stuck, "into-a-disabled-table")).isTrue();
      } finally {
        zk.close();
        if (!admin.isTableEnabled(disabled)) {
          admin.enableTable(disabled);
        }
      }
    }
  }

  /**
   * Issue 54, item 6: a commit HBase refused for good held the replay of its whole log, so every region leading a
   * group with a record in that log waited, those whose groups' commits were all persisted (a mark after them)
   * included. Now only the refused commit's group waits: the others are written, marked beside the log so that no
   * later attempt writes them again, and their regions open.
   */
  @Test
  void aCommitRefusedForGoodHoldsBackOnlyItsOwnGroupNotTheOthersInItsLog(GStoreMiniCluster cluster)
      throws Exception {
    Configuration conf = cluster.getConfiguration();
    Path root = GStoreConfig.walRoot(conf);
    TableName refusing = TableName.valueOf("replay_refused");
    TableName fineTable = TableName.valueOf("replay_beside");
    GroupRef stuck = new GroupRef(new GroupId("refused", Key.of("t", "refused-leader")), new Uid(new NodeId("m"), 1));
    GroupRef fine = new GroupRef(new GroupId("beside", Key.of("t", "beside-leader")), new Uid(new NodeId("m"), 2));
    GroupRef marked = new GroupRef(new GroupId("marked", Key.of("t", "marked-leader")), new Uid(new NodeId("m"), 3));
    String server = "mixed.example.com,16020,8";
    try (FileSystem deadFs = FileSystem.newInstance(root.toUri(), conf);
        FileSystem recoveryFs = FileSystem.newInstance(root.toUri(), conf);
        Admin admin = cluster.getConnection().getAdmin()) {
      // tables without G-Store: their rows are in no group here, which G-Store's hook would refuse a replay to write
      admin.createTable(TableDescriptorBuilder.newBuilder(fineTable)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of("a")).build());
      // without the family the stuck commit writes, from the start: the cluster's own region servers replay dead
      // logs too as regions open, and one could replay the log before a family dropped later is gone
      admin.createTable(TableDescriptorBuilder.newBuilder(refusing)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of("b")).build());
      SharedWal wal = openWal(deadFs, root, server);
      wal.append(marked, record(marked, "persisted-before", fineTable, "marked-row")).get(30, TimeUnit.SECONDS);
      wal.append(marked, WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(marked))
          .setCommitTs(System.currentTimeMillis()).setTxnId("").setPersistedMark(true).build().toByteArray())
          .get(30, TimeUnit.SECONDS);
      wal.append(stuck, record(stuck, "into-a-dropped-family", refusing)).get(30, TimeUnit.SECONDS);
      wal.append(fine, record(fine, "replayable-beside", fineTable, "fine-row")).get(30, TimeUnit.SECONDS);
      wal.close();
      ZooKeeper zk = TestZooKeeper.session(conf);
      try {
        WalRecovery recovery = recovery(cluster, recoveryFs, zk, 2_000);
        assertThatThrownBy(() -> recovery.recoverDeadServers(stuck.id().leader()::equals))
            .as("the refused group's region waits, told why").isInstanceOf(IOException.class)
            .hasMessageContaining(server).hasMessageContaining("refuses");
        // (a region server of the cluster may hold the log's lock a while: the region waits at most its attempt)
        Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(
            () -> recovery.recoverDeadServers(fine.id().leader()::equals, WalRecovery.REGION_WAIT_MILLIS));
        assertThat(recorded(cluster, fine, "replayable-beside")).isTrue();
        assertThat(cluster.getConnection().getTable(fineTable).exists(new Get(Bytes.toBytes("fine-row"))))
            .as("the other group's commit is in HBase").isTrue();
        Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(
            () -> recovery.recoverDeadServers(marked.id().leader()::equals, WalRecovery.REGION_WAIT_MILLIS));

        admin.addColumnFamily(refusing, ColumnFamilyDescriptorBuilder.of("a")); // the cause is gone
        WalRecovery.Pass pass = Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
            .until(() -> recovery.recoverDeadServers(stuck.id().leader()::equals), p -> true);
        assertThat(cluster.getConnection().getTable(refusing).exists(new Get(Bytes.toBytes("row"))))
            .as("the refused commit lands once HBase takes it").isTrue();
        assertThat(pass.commitsReplayed()).as("at most the refused group's commit (none if a region server of the"
            + " cluster finished the log): the others are marked replayed").isLessThanOrEqualTo(1);
      } finally {
        zk.close();
      }
    }
  }

  /**
   * Issue 35, item 4: one stuck log held every region opening on the server in turn. Its commits' replay held a
   * synchronized pass for the attempt time (a minute by default), and its protocol state's replay kept no memo of
   * failures and wrote with no bound while holding the log's lock: regions whose rows it does not concern waited a
   * minute each, one after another. Now each waits for a log at most two seconds, then reads from the fenced log
   * whether it must wait.
   */
  @Test
  void regionsWhoseRowsAStuckLogDoesNotConcernServeWithinSecondsWhileItsReplayHangs(GStoreMiniCluster cluster)
      throws Exception {
    Configuration conf = cluster.getConfiguration();
    Path root = GStoreConfig.walRoot(conf);
    TableName disabled = TableName.valueOf("replay_hangs");
    cluster.createTable(disabled, new byte[][] {Bytes.toBytes("a")}, null).close();
    GroupRef stuck = new GroupRef(new GroupId("hangs", Key.of("t", "hangs-leader")), new Uid(new NodeId("h"), 1));
    Key stuckRow = Key.of("t", "hangs-row");
    String stuckServer = "hangs.example.com,16020,7";
    java.util.concurrent.CountDownLatch stateTablesAnswer = new java.util.concurrent.CountDownLatch(1);
    try (FileSystem deadFs = FileSystem.newInstance(root.toUri(), conf);
        FileSystem recoveryFs = FileSystem.newInstance(root.toUri(), conf);
        Admin admin = cluster.getConnection().getAdmin()) {
      recoveryFs.create(new Path(new Path(root, stuckServer), WalFiles.PROTOCOL_LOGGED), false).close();
      SharedWal stuckWal = openWal(deadFs, root, stuckServer);
      List<org.gstore.common.protocol.log.LoggedChange> owner = new org.gstore.common.protocol.log.VersionClock()
          .stamp(List.of(new org.gstore.common.protocol.StateChange.RemoveOwner(stuckRow)), System.currentTimeMillis());
      stuckWal.appendProtocol(1, org.gstore.common.wire.ProtocolRecordCodec.encode(
          new org.gstore.common.protocol.log.ProtocolRecord(1, owner))).get(30, TimeUnit.SECONDS);
      stuckWal.append(stuck, record(stuck, "into-a-disabled-table-2", disabled)).get(30, TimeUnit.SECONDS);
      stuckWal.close();
      admin.disableTable(disabled);
      ZooKeeper zk = TestZooKeeper.session(conf);
      try {
        // the state tables hang (a region in transition) and the commits' table is disabled: attempts of 30 s
        String parent = cluster.getTestingUtility().getZooKeeperWatcher().getZNodePaths().baseZNode;
        WalRecovery recovery = new WalRecovery(recoveryFs, root, "opener.example.com,16020,3",
            new RecoveryZnodes(() -> zk, parent, ZooDefs.Ids.OPEN_ACL_UNSAFE),
            new CommitApplier(cluster.getConnection(), new OwnerToken(cluster.clusterSecret()), Durability.SYNC_WAL,
                30_000),
            changes -> {
              try {
                stateTablesAnswer.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException();
              }
            }, 600_000, 30_000);
        List<CompletableFuture<Long>> regions = new java.util.ArrayList<>();
        // unrelated regions opening at once, as after a server's regions move here: one after another on one thread,
        // as a region server's loader and recovery threads take them
        java.util.concurrent.ExecutorService opening = java.util.concurrent.Executors.newSingleThreadExecutor();
        long allStart = System.nanoTime();
        for (int i = 0; i < 20; i++) {
          Key unrelated = Key.of("t", "unrelated-" + i);
          regions.add(CompletableFuture.supplyAsync(() -> {
            long start = System.nanoTime();
            try {
              recovery.replayProtocolState(unrelated::equals, WalRecovery.REGION_WAIT_MILLIS);
              recovery.recoverDeadServers(unrelated::equals, WalRecovery.REGION_WAIT_MILLIS);
            } catch (IOException e) {
              throw new java.util.concurrent.CompletionException(e);
            }
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          }, opening));
        }
        opening.shutdown();
        for (CompletableFuture<Long> region : regions) {
          assertThat(region.get(90, TimeUnit.SECONDS)).as("a region the stuck log does not concern serves within"
              + " seconds").isLessThan(10_000);
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - allStart)).as("the 20 of them, one after"
            + " another").isLessThan(20_000);
        assertThatThrownBy(() -> recovery.replayProtocolState(stuckRow::equals, WalRecovery.REGION_WAIT_MILLIS))
            .as("the row whose protocol state the log holds waits").hasMessageContaining(stuckServer);
        assertThatThrownBy(() -> recovery.recoverDeadServers(stuck.id().leader()::equals))
            .as("and so does the group whose commit it holds").hasMessageContaining(stuckServer);
        recovery.close();
      } finally {
        stateTablesAnswer.countDown();
        zk.close();
        admin.enableTable(disabled);
      }
    }
  }

  @Test
  void aReplayedCommitWhoseRowsLeftItsGroupIsSkippedWholeThoughOneOfThemIsFreeNow(GStoreMiniCluster cluster)
      throws Exception {
    Configuration conf = cluster.getConfiguration();
    Path root = GStoreConfig.walRoot(conf);
    TableName table = TableName.valueOf("replay_fenced_out");
    cluster.createTable(table, new byte[][] {Bytes.toBytes("a")}, null).close();
    GroupRef deadLeadersGroup = group("fenced-out-group");
    String dead = "fenced-out.example.com,16020,4";
    try (GStoreClient client = GStoreClient.create(cluster.getConnection());
        FileSystem deadFs = FileSystem.newInstance(root.toUri(), conf);
        FileSystem recoveryFs = FileSystem.newInstance(root.toUri(), conf)) {
      // the dead leader's commit wrote two rows of one region; one has joined another group since, the other is free
      // and refuses the dead group's token as well: the commit is refused whole, and skipped
      KeyGroup taker = client.createGroup(GroupSpec.builder().id("taker")
          .members(table, List.of(Bytes.toBytes("taken"))).build());
      SharedWal wal = openWal(deadFs, root, dead);
      wal.append(deadLeadersGroup, record(deadLeadersGroup, "left-its-group", table, "free", "taken"))
          .get(30, TimeUnit.SECONDS);
      wal.abandon();

      ZooKeeper zk = TestZooKeeper.session(conf);
      try {
        WalRecovery.Pass pass = recovery(cluster, recoveryFs, zk, 10_000).recoverDeadServers();
        assertThat(pass.commitsSkipped()).as("skipped, not a replay stuck on the refusal").isEqualTo(1);
      } finally {
        zk.close();
      }
      taker.delete();
    }
  }

  private static WalRecovery recovery(GStoreMiniCluster cluster, FileSystem fs, ZooKeeper zk) throws IOException {
    return recovery(cluster, fs, zk, WalRecovery.DEFAULT_ATTEMPT_MILLIS);
  }

  private static WalRecovery recovery(GStoreMiniCluster cluster, FileSystem fs, ZooKeeper zk, long attemptMillis)
      throws IOException {
    String parent = cluster.getTestingUtility().getZooKeeperWatcher().getZNodePaths().baseZNode;
    return new WalRecovery(fs, GStoreConfig.walRoot(cluster.getConfiguration()), "recoverer.example.com,16020,2",
        new RecoveryZnodes(() -> zk, parent, ZooDefs.Ids.OPEN_ACL_UNSAFE),
        new CommitApplier(cluster.getConnection(), new OwnerToken(cluster.clusterSecret()), Durability.SYNC_WAL,
            (int) attemptMillis),
        changes -> {
          throw new AssertionError("these logs hold no protocol state: " + changes);
        },
        600_000, attemptMillis);
  }

  /** Whether {@code dir} exists and each of its log files is closed: its lease recovered, its length final. */
  private static boolean allClosed(FileSystem fs, Path dir) throws IOException {
    if (!fs.exists(dir)) {
      return false;
    }
    for (Path f : WalFiles.files(fs, dir)) {
      if (!((org.apache.hadoop.hdfs.DistributedFileSystem) fs).isFileClosed(f)) {
        return false;
      }
    }
    return true;
  }

  /** Whether a replay recorded that {@code txnId} committed, for a retry of it to find at the group's next leader. */
  private static boolean recorded(GStoreMiniCluster cluster, GroupRef group, String txnId) throws IOException {
    return new OutcomeTable(cluster.getConnection()).commitTs(group.id(), txnId).isPresent();
  }
}
