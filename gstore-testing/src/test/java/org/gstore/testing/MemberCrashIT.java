package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.zookeeper.ZKUtil;
import org.apache.hadoop.hbase.zookeeper.ZKWatcher;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.server.GStoreServer;
import org.gstore.coprocessor.server.GStoreServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With {@code ASYNC_WAL} shipping, a region server that received shipped writes and dies before syncing its HBase
 * WAL may lose them; the leader holds every shipped commit until each server claims it persisted (T_P), and ships
 * again what a dead server had not claimed. Heartbeats here are 3 s apart, so the crash comes after the commits
 * are shipped and before the member server could claim them (checked, not assumed). Runs its own cluster.
 */
class MemberCrashIT {
  private static final TableName BANK = TableName.valueOf("member_crash_bank");

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void theLeaderShipsAgainWhatADeadMemberServerHadNotPersisted() throws Exception {
    // a crash here stops G-Store dead in-process, so no zombie can answer: a short zombie window lets the dead
    // server's last claim stop holding the leader's commits back within the test's wait
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(3, Map.of(
            GStoreConfig.SHIPPER_DURABILITY, "ASYNC_WAL", GStoreConfig.RECOVERY_HEARTBEAT_MS, "3000",
            GStoreConfig.RECOVERY_ZOMBIE_WINDOW_MS, "2000"));
        GStoreClient client = GStoreClient.create(cluster.getConfiguration())) {
      cluster.createTable(BANK, new byte[][] {Accounts.CF}, TestRows.splits(3)).close();
      List<byte[]> rows = TestRows.rows(0, 10);
      try (Table table = cluster.getConnection().getTable(BANK)) {
        for (byte[] row : rows) {
          table.put(Accounts.balance(row, 1_000));
        }
      }
      ServerName leaderHost = TestRegions.hostOf(cluster, BANK, rows.get(0));
      byte[] memberRow = null;
      for (byte[] r : rows) {
        if (memberRow == null && !TestRegions.hostOf(cluster, BANK, r).equals(leaderHost)) {
          memberRow = r;
        }
      }
      ServerName memberHost = TestRegions.hostOf(cluster, BANK, memberRow);
      byte[] member = memberRow;
      KeyGroup g = client.createGroup(GroupSpec.builder().id("members-crash").leader(BANK, rows.get(0))
          .members(BANK, rows).build());
      GStoreServer leader = GStoreServers.on(leaderHost);

      long shipped;
      int transfers = 0;
      do { // until the member server holds a shipped write it has not claimed yet
        transfers++;
        Accounts.transfer(g, BANK, rows.get(0), member, 1);
        long target = leader.shipper().ledger().shippedThrough() + 1;
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> leader.shipper().ledger().shippedThrough() >= target);
        shipped = leader.shipper().ledger().shippedThrough();
      } while (claimOf(cluster, memberHost, leader.log()) >= shipped && transfers < 10);
      assertThat(claimOf(cluster, memberHost, leader.log())).as("premise: shipped, not yet claimed")
          .isLessThan(shipped);
      assertThat(leader.shipper().ledger().unpersistedCount()).isPositive();

      cluster.crashRegionServer(TestRegions.serverIndex(cluster, memberHost));

      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> leader.shipper().ledger().shippedAgainCount() > 0);
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> leader.shipper().ledger().unpersistedCount() == 0);
      g.delete();
      try (Table table = cluster.getConnection().getTable(BANK)) {
        assertThat(Accounts.balance(table.get(new Get(rows.get(0))))).isEqualTo(1_000 - transfers);
        assertThat(Accounts.balance(table.get(new Get(memberRow)))).isEqualTo(1_000 + transfers);
      }
    }
  }

  /** The member server's T_P claim for the leader's shipments (its log, -1 if none). */
  private static long claimOf(GStoreMiniCluster cluster, ServerName server, String leaderLog) throws Exception {
    ZKWatcher zk = cluster.getTestingUtility().getZooKeeperWatcher();
    byte[] data = ZKUtil.getData(zk, zk.getZNodePaths().baseZNode + "/gstore/persisted/" + server.getServerName());
    if (data == null) {
      return -1;
    }
    for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
      if (line.startsWith(leaderLog + "=")) {
        return Long.parseLong(line.substring(line.lastIndexOf('=') + 1));
      }
    }
    return -1;
  }
}
