package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.SpaceViolationPolicy;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.RowGroupedException;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.server.GStoreServers;
import org.gstore.recovery.ShipmentLedger;
import org.gstore.recovery.hbase.WalFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 35, item 2, on a real cluster: a commit HBase refuses for good (a space quota with {@code NO_WRITES} on its
 * member table) is quarantined and holds its group through everything that would have dropped it: a delete, a lease
 * that lapses, a move of the leader region. Once the quota is lifted it lands, after the group's earlier commit and
 * with no later one of the group before it, the group is released, and its WAL file is deleted again. Runs its own
 * cluster with space quotas on (their chores every 500 ms), quarantined commits retried every second and 64 KiB WAL
 * files.
 */
class QuarantinedCommitIT {
  private static final TableName LEADERS = TableName.valueOf("quarantine_leaders");
  private static final TableName QUOTED = TableName.valueOf("quarantine_quoted");
  private static final byte[] CF = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static final byte[] LEADER = Bytes.toBytes("leader");
  private static final byte[] ROLLER = Bytes.toBytes("roller");
  private static final byte[] MEMBER = Bytes.toBytes("member");
  private static final Duration LEASE = Duration.ofSeconds(3);

  private static Map<String, String> settings() {
    Map<String, String> s = new java.util.HashMap<>(Map.of(
        "hbase.quota.enabled", "true",
        GStoreConfig.SHIPPER_QUARANTINE_RETRY_MS, "1000",
        GStoreConfig.RECOVERY_HEARTBEAT_MS, "200",
        GStoreConfig.RECOVERY_RETAIN_MS, "1000",
        GStoreConfig.WAL_ROLL_BYTES, "65536",
        GStoreConfig.ENDPOINT_WAIT_MS, "2000"));
    for (String chore : List.of("hbase.master.quotas.observer.chore", "hbase.regionserver.quotas.policy.refresher.chore",
        "hbase.regionserver.quotas.region.size.reporting.chore", "hbase.regionserver.quotas.fs.utilization.chore",
        "hbase.master.quotas.snapshot.chore")) {
      s.put(chore + ".period", "500");
      s.put(chore + ".delay", "500");
    }
    s.put("hbase.master.quotas.region.report.retention.millis", "1000");
    return s;
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aQuarantinedCommitHoldsItsGroupThroughADeleteALapsedLeaseAndAMoveAndLandsInOrderOnceTheCauseIsLifted()
      throws Exception {
    ExecutorService background = Executors.newSingleThreadExecutor();
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(2, settings());
        Table leaders = cluster.createTable(LEADERS, new byte[][] {CF}, null);
        Table quoted = cluster.createTable(QUOTED, new byte[][] {CF}, null);
        Admin admin = cluster.getConnection().getAdmin()) {
      for (int i = 0; i < 64; i++) { // a table larger than its quota will be, once flushed
        quoted.put(new Put(Bytes.toBytes("filler-" + i)).addColumn(CF, Q, new byte[1_024]));
      }
      admin.flush(QUOTED);
      KeyGroup roller;
      ServerName leaderHost = TestRegions.hostOf(cluster, LEADERS, LEADER);
      ShipmentLedger ledger = GStoreServers.on(leaderHost).shipper().ledger();
      FileSystem fs = cluster.getTestingUtility().getTestFileSystem();
      Path walDir = new Path(GStoreConfig.walRoot(cluster.getConfiguration()), GStoreServers.on(leaderHost).log());
      Path quarantinedFile;
      try (GStoreClient client = GStoreClient.create(impatient(cluster.getConfiguration()))) {
        KeyGroup g = client.createGroup(GroupSpec.builder().id("quarantined").leader(LEADERS, LEADER)
            .member(QUOTED, MEMBER).lease(LEASE).build());
        roller = client.createGroup(GroupSpec.builder().id("roller").leader(LEADERS, ROLLER).build());
        write(g, "before");
        Awaitility.await("the first commit in HBase").atMost(Duration.ofSeconds(30))
            .until(() -> "before".equals(value(quoted, MEMBER)));

        admin.setQuota(QuotaSettingsFactory.limitTableSpace(QUOTED, 1_024, SpaceViolationPolicy.NO_WRITES));
        Awaitility.await("the quota in force").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(250))
            .until(() -> refused(quoted));
        write(g, "quarantined"); // acknowledged: durable in G-Store's WAL, then refused by HBase for good
        Awaitility.await("quarantined").atMost(Duration.ofSeconds(30)).until(() -> ledger.quarantinedCount() == 1);
        quarantinedFile = WalFiles.files(fs, walDir).get(0);

        assertThatThrownBy(() -> write(g, "later")).as("the group's commits wait for it")
            .hasStackTraceContaining("quarantined");
        assertThatThrownBy(g::delete).as("a delete does not release the rows under it").isInstanceOf(IOException.class);
        for (int i = 0; i < 48; i++) { // another group's commits roll the WAL file past the quarantined one
          write(roller, "padding-" + i, new byte[2_048]);
        }
        assertThat(WalFiles.files(fs, walDir)).as("rolled, and the quarantined commit's file kept").hasSizeGreaterThan(1)
            .contains(quarantinedFile);
      } // closed: nobody renews the group's lease any more
      Awaitility.await("the rows stay held: a delete, and a lapsed lease, wait for the commit")
          .during(LEASE.multipliedBy(2)).atMost(LEASE.multipliedBy(3)).until(() -> fenced(leaders, LEADER));
      Future<ServerName> move = background.submit(() -> TestRegions.move(cluster, LEADERS, LEADER));
      Awaitility.await("the leader region's close waits for the commit").during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10)).until(() -> !move.isDone());
      assertThat(ledger.quarantinedCount()).isEqualTo(1);

      admin.setQuota(QuotaSettingsFactory.removeTableSpaceLimit(QUOTED));
      assertThat(move.get(2, TimeUnit.MINUTES)).isNotEqualTo(leaderHost);
      assertThat(value(quoted, MEMBER)).as("landed, after the group's earlier commit and before none of its later")
          .isEqualTo("quarantined");
      assertThat(ledger.quarantinedCount()).isZero();
      Awaitility.await("the group deleted, its rows released").atMost(Duration.ofSeconds(30))
          .ignoreException(RowGroupedException.class).until(() -> !fenced(leaders, LEADER));
      Awaitility.await("the quarantined commit's WAL file deleted").atMost(Duration.ofSeconds(30))
          .until(() -> !fs.exists(quarantinedFile));
    } finally {
      background.shutdownNow();
    }
  }

  /** A client whose HBase calls and commits give up soon: refusals come back within seconds. */
  private static Configuration impatient(Configuration base) {
    Configuration conf = new Configuration(base);
    conf.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 2);
    conf.setLong(HConstants.HBASE_CLIENT_PAUSE, 50);
    conf.setLong(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, 10_000);
    conf.setLong(GStoreClient.COMMIT_DEADLINE, 5_000);
    conf.setLong(GStoreClient.OPERATION_TIMEOUT, 5_000);
    return conf;
  }

  private static void write(KeyGroup g, String value) throws Exception {
    write(g, value, new byte[0]);
  }

  private static void write(KeyGroup g, String value, byte[] padding) throws Exception {
    byte[] row = g.id().toString().contains("roller") ? ROLLER : MEMBER;
    TableName table = row == ROLLER ? LEADERS : QUOTED;
    g.transact(txn -> {
      txn.put(table, new Put(row).addColumn(CF, Q, Bytes.add(Bytes.toBytes(value), padding)));
      return null;
    });
  }

  private static String value(Table table, byte[] row) throws IOException {
    byte[] v = table.get(new Get(row)).getValue(CF, Q);
    return v == null ? null : Bytes.toString(v);
  }

  /** Whether the space quota refuses a plain write to a row of no group. */
  private static boolean refused(Table quoted) {
    try {
      quoted.put(new Put(Bytes.toBytes("probe")).addColumn(CF, Q, Bytes.toBytes(1L)));
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  /** Whether G-Store refuses a plain write to {@code row}: a group holds it. */
  private static boolean fenced(Table table, byte[] row) throws IOException {
    try {
      table.put(new Put(row).addColumn(CF, Bytes.toBytes("probe"), Bytes.toBytes(1L)));
      return false;
    } catch (RowGroupedException e) {
      return true;
    }
  }
}
