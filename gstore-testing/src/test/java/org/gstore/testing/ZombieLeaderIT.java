package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.server.GStoreServers;
import org.gstore.recovery.hbase.WalRecovery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A zombie leader: HBase has declared its server dead and a recovery has fenced its G-Store WAL (renamed its
 * directory, the first thing a recovery does), but the server still runs, and a client with a stale location asks
 * it to delete a group. It writes {@code DELETING}, finds itself fenced before it lets anything out, and takes its
 * region server down; the group's rows are released only by its next leader, which loads the {@code DELETING} the
 * zombie wrote and finishes the delete. Before the check, the zombie sent the releases itself: members gave the rows
 * back while (in production) a new leader served the group. Runs its own cluster.
 */
class ZombieLeaderIT {
  private static final TableName BANK = TableName.valueOf("zombie_leader_bank");
  private static final byte[] PROBE = Bytes.toBytes("probe");
  private static final int COMMITS = 5;

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aFencedLeaderReleasesNothingAndStopsItsServer() throws Exception {
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(3, Map.of());
        GStoreClient client = GStoreClient.create(cluster.getConfiguration())) {
      cluster.createTable(BANK, new byte[][] {Accounts.CF}, TestRows.splits(3)).close();
      List<byte[]> rows = TestRows.rows(0, 10);
      try (Table table = cluster.getConnection().getTable(BANK)) {
        for (byte[] row : rows) {
          table.put(Accounts.balance(row, 100));
        }
      }
      ServerName leaderHost = TestRegions.hostOf(cluster, BANK, rows.get(0));
      byte[] member = null;
      for (byte[] r : rows) {
        if (member == null && !TestRegions.hostOf(cluster, BANK, r).equals(leaderHost)) {
          member = r;
        }
      }
      assertThat(member).as("a member row away from the leader").isNotNull();
      byte[] away = member;
      KeyGroup g = client.createGroup(GroupSpec.builder().id("zombie").leader(BANK, rows.get(0))
          .members(BANK, rows).build());
      for (int i = 0; i < COMMITS; i++) {
        g.transact(txn -> {
          txn.put(BANK, Accounts.balance(away, Accounts.balance(txn.get(BANK, new Get(away))) + 1));
          return null;
        });
      }
      HRegionServer zombie = cluster.getTestingUtility().getMiniHBaseCluster()
          .getRegionServer(TestRegions.serverIndex(cluster, leaderHost));

      // what a recovery does first when HBase declares the leader's server dead
      Path walRoot = GStoreConfig.walRoot(cluster.getConfiguration());
      FileSystem fs = walRoot.getFileSystem(cluster.getConfiguration());
      String log = GStoreServers.on(leaderHost).log();
      assertThat(fs.rename(new Path(walRoot, log), new Path(walRoot, log + WalRecovery.RECOVERING))).isTrue();

      CompletableFuture<Void> delete = CompletableFuture.runAsync(() -> {
        try {
          g.delete();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      Configuration quick = new Configuration(cluster.getConfiguration());
      quick.setInt("hbase.client.retries.number", 1);
      quick.setInt("hbase.client.operation.timeout", 5_000);
      try (Connection plain = ConnectionFactory.createConnection(quick);
          Table table = plain.getTable(BANK)) {
        org.awaitility.Awaitility.await("the group's next leader finishes the delete")
            .atMost(java.time.Duration.ofMinutes(3)).pollInterval(java.time.Duration.ofMillis(50)).until(() -> {
              boolean zombieDownBefore = zombie.isAborted() || zombie.isStopped();
              try {
                table.put(new Put(away).addColumn(Accounts.CF, PROBE, Bytes.toBytes(1L)));
              } catch (IOException refusedOrMoving) {
                return false;
              }
              assertThat(zombieDownBefore).as("a row was released while its fenced leader still ran").isTrue();
              return true;
            });
      }
      assertThat(zombie.isAborted()).as("the fenced server took its region server down").isTrue();
      TestRows.awaitFree(cluster, BANK, rows);
      try (Table table = cluster.getConnection().getTable(BANK)) {
        assertThat(Accounts.balance(table.get(new Get(away)))).as("every acknowledged commit")
            .isEqualTo(100 + COMMITS);
      }
      try {
        delete.get(2, TimeUnit.MINUTES);
      } catch (java.util.concurrent.ExecutionException e) {
        // the client's delete may report an unknown outcome: it was asked of a server that died under it
        assertThat(e.getCause()).isInstanceOf(UncheckedIOException.class);
      }
    }
  }
}
