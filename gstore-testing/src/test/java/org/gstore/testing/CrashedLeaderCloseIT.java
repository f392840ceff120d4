package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.zookeeper.ZKWatcher;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.server.GStoreServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 53's loss of acknowledged commits: G-Store on a server stopped as if it had crashed while HBase there still
 * served (a fatal cause, or the window of a kill), and a balancer move closed a leader region on it. The close
 * returned without draining, HBase reported the region closed, and its next host opened it while the server was
 * live: no one replays a live server's WAL, so the next host loaded the group from HBase without the commits that
 * were only in that WAL (the member row read 110, not 130). Every close of a leader region must drain or hand over
 * to a replay: such a close now fails, the server aborts, and the region serves only once its WAL is replayed. The
 * replay is held back here (its lock taken) so that serving early, not a value that a timely replay could mask, is
 * what the test sees. Runs its own cluster.
 */
class CrashedLeaderCloseIT {
  private static final TableName T = TableName.valueOf("crashed_leader_close");

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aLeaderRegionClosedAfterGStoreCrashedServesOnlyOnceItsWalIsReplayed() throws Exception {
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(3, Map.of(
            GStoreConfig.RECOVERY_HEARTBEAT_MS, "600000")); // nothing claimed: the commits stay held by the leader
        GStoreClient client = GStoreClient.create(cluster.getConfiguration())) {
      cluster.createTable(T, new byte[][] {Accounts.CF}, TestRows.splits(3)).close();
      ServerName meta = cluster.getTestingUtility().getMiniHBaseCluster().getServerHoldingMeta();
      byte[] leader = TestRows.row(0);
      byte[] member = TestRows.row(9); // another region
      ServerName victim = null;
      ServerName other = null;
      try (Admin admin = cluster.getConnection().getAdmin()) {
        for (ServerName s : admin.getRegionServers()) {
          if (victim == null && !s.equals(meta)) {
            victim = s;
          } else if (other == null && !s.equals(meta)) {
            other = s;
          }
        }
        for (byte[] row : List.of(leader, member)) {
          admin.move(regionOf(cluster, row).getEncodedNameAsBytes(), victim);
        }
        cluster.getTestingUtility().waitUntilNoRegionsInTransition(60_000);
      }
      assertThat(TestRegions.hostOf(cluster, T, leader)).isEqualTo(victim);
      assertThat(TestRegions.hostOf(cluster, T, member)).isEqualTo(victim);
      try (org.apache.hadoop.hbase.client.Table table = cluster.getConnection().getTable(T)) {
        table.put(Accounts.balance(member, 100));
      }
      KeyGroup g = client.createGroup(GroupSpec.builder().id("crashed-close").leader(T, leader).member(T, member)
          .build());
      for (int i = 0; i < 15; i++) {
        g.transact(txn -> {
          long v = Accounts.balance(txn.get(T, new Get(member)));
          txn.put(T, Accounts.balance(member, v + 2));
          return null;
        });
      }
      ServerName crashed = victim;
      ServerName target = other;
      String log = GStoreServers.on(crashed).log();
      ZKWatcher watcher = cluster.getTestingUtility().getZooKeeperWatcher();
      String lock = watcher.getZNodePaths().baseZNode + "/gstore/recovery/" + log;
      try (ZooKeeper zk = TestZooKeeper.session(cluster.getConfiguration())) {
        createParents(zk, lock);
        zk.create(lock, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL); // no replay of its log yet

        GStoreServers.crash(crashed); // G-Store dead; HBase there still serves
        RegionInfo leaderRegion = regionOf(cluster, leader);
        try (Admin admin = cluster.getConnection().getAdmin()) {
          try {
            CompletableFuture.runAsync(() -> {
              try {
                admin.move(leaderRegion.getEncodedNameAsBytes(), target);
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            }).get(60, TimeUnit.SECONDS);
          } catch (Exception e) {
            // the close failed and its server aborted: the move gave way to the crash's recovery
          }
        }
        var hbase = cluster.getTestingUtility().getMiniHBaseCluster();
        if (hbase.getLiveRegionServerThreads().stream()
            .anyMatch(t -> t.getRegionServer().getServerName().equals(crashed))) {
          hbase.killRegionServer(crashed);
        }
        hbase.waitForRegionServerToStop(crashed, 60_000);
        cluster.getTestingUtility().waitUntilNoRegionsInTransition(120_000);

        CompletableFuture<Long> read = CompletableFuture.supplyAsync(() -> {
          try {
            return g.transact(txn -> Accounts.balance(txn.get(T, new Get(member))));
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
        Awaitility.await().during(Duration.ofSeconds(15)).atMost(Duration.ofSeconds(20)).until(() -> !read.isDone());
        zk.delete(lock, -1); // the replay may run now
        assertThat(read.get(2, TimeUnit.MINUTES)).as("every acknowledged commit").isEqualTo(130L);
      }
    }
  }

  private static RegionInfo regionOf(GStoreMiniCluster cluster, byte[] row) throws java.io.IOException {
    return cluster.getConnection().getRegionLocator(T).getRegionLocation(row, true).getRegion();
  }

  private static void createParents(ZooKeeper zk, String path) throws Exception {
    StringBuilder at = new StringBuilder();
    String[] parts = path.substring(1).split("/");
    for (int i = 0; i < parts.length - 1; i++) {
      at.append('/').append(parts[i]);
      try {
        zk.create(at.toString(), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException exists) {
        // made by G-Store or HBase
      }
    }
  }
}
