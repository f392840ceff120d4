package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.server.GStoreServers;
import org.gstore.recovery.hbase.WalFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With a small roll size, a long run of commits leaves the leader's WAL bounded (files go once nothing needs them),
 * and what is left is still enough: crashing the leader afterwards loses no commit. Runs its own cluster with
 * 64 KiB files, a 1 s retention and a 100 ms heartbeat.
 */
class WalTruncationIT {
  private static final TableName TABLE = TableName.valueOf("truncated_wal");
  private static final byte[] CF = Bytes.toBytes("a");
  private static final byte[] Q = Bytes.toBytes("v");
  private static final int COMMITS = 400;

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void theWalStaysBoundedAndStillHoldsEverythingARecoveryNeeds() throws Exception {
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(2, Map.of(GStoreConfig.WAL_ROLL_BYTES, "65536",
            GStoreConfig.RECOVERY_RETAIN_MS, "1000", GStoreConfig.RECOVERY_HEARTBEAT_MS, "100"));
        GStoreClient client = GStoreClient.create(cluster.getConfiguration())) {
      cluster.createTable(TABLE, new byte[][] {CF}, TestRows.splits(2)).close();
      List<byte[]> rows = TestRows.rows(0, 4);
      KeyGroup g = client.createGroup(GroupSpec.builder().id("long-run").leader(TABLE, rows.get(0))
          .members(TABLE, rows).build());
      ServerName leader = TestRegions.hostOf(cluster, TABLE, rows.get(0));
      FileSystem fs = cluster.getTestingUtility().getTestFileSystem();
      Path walDir = new Path(GStoreConfig.walRoot(cluster.getConfiguration()), GStoreServers.on(leader).log());

      byte[] padding = new byte[2_048]; // 400 commits of 2 KiB: about 13 files of 64 KiB
      int mostFiles = 0;
      for (int i = 0; i < COMMITS; i++) {
        int n = i;
        g.transact(txn -> {
          txn.put(TABLE, new Put(rows.get(n % rows.size())).addColumn(CF, Q, Bytes.add(Bytes.toBytes(n), padding)));
          return null;
        });
        mostFiles = Math.max(mostFiles, WalFiles.files(fs, walDir).size());
      }
      System.out.printf("WAL truncation: at most %d files during %d commits of 2 KiB with 64 KiB files%n",
          mostFiles, COMMITS);
      assertThat(mostFiles).as("files were deleted during the run").isLessThan(10);
      Awaitility.await().atMost(Duration.ofSeconds(30))
          .until(() -> WalFiles.files(fs, walDir).size() <= 2);

      // what is left is enough: the leader crashes, and the group has every commit at its next host
      cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer();
      cluster.crashRegionServer(TestRegions.serverIndex(cluster, leader));
      for (int r = 0; r < rows.size(); r++) {
        int row = r;
        int last = COMMITS - rows.size() + r; // the last commit that wrote this row
        byte[] value = g.transact(txn -> txn.get(TABLE, new Get(rows.get(row))).getValue(CF, Q));
        assertThat(Bytes.toInt(value, 0)).isEqualTo(last);
      }
      g.delete();
      try (Table table = cluster.getConnection().getTable(TABLE)) {
        assertThat(Bytes.toInt(table.get(new Get(rows.get(3))).getValue(CF, Q), 0)).isEqualTo(COMMITS - 1);
      }
    }
  }
}
