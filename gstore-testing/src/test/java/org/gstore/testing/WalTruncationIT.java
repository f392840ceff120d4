package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * With a small roll size, a long run of commits leaves the leader's WAL bounded (files go while commits go on, once
 * nothing needs them), and what is left is still enough: crashing the leader afterwards loses no commit. Runs its own
 * cluster with 64 KiB files, a 1 s retention and a 100 ms heartbeat.
 */
class WalTruncationIT {
  private static final TableName TABLE = TableName.valueOf("truncated_wal");
  private static final byte[] CF = Bytes.toBytes("a");
  private static final byte[] Q = Bytes.toBytes("v");
  /** Commits of 2 KiB: about 13 files of 64 KiB. */
  private static final int MIN_COMMITS = 400;
  /** More commits are made until a file is seen deleted while they go on, but no more than this. */
  private static final int MAX_COMMITS = 4_000;

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

      byte[] padding = new byte[2_048];
      Set<String> seen = new HashSet<>();
      boolean deletedDuringRun = false;
      int mostFiles = 0;
      int commits = 0;
      while (commits < MIN_COMMITS || (!deletedDuringRun && commits < MAX_COMMITS)) {
        int n = commits++;
        g.transact(txn -> {
          txn.put(TABLE, new Put(rows.get(n % rows.size())).addColumn(CF, Q, Bytes.add(Bytes.toBytes(n), padding)));
          return null;
        });
        Set<String> now = new HashSet<>();
        WalFiles.files(fs, walDir).forEach(file -> now.add(file.toString()));
        seen.addAll(now);
        deletedDuringRun |= !now.containsAll(seen);
        mostFiles = Math.max(mostFiles, now.size());
      }
      // how many files are there at once depends on how fast commits go within the retention: not asserted
      System.out.printf("WAL truncation: %d commits of 2 KiB with 64 KiB files wrote %d files, at most %d at once%n",
          commits, seen.size(), mostFiles);
      assertThat(deletedDuringRun).as("files were deleted while commits went on").isTrue();
      Awaitility.await().atMost(Duration.ofSeconds(30))
          .until(() -> WalFiles.files(fs, walDir).size() <= 2);

      // what is left is enough: the leader crashes, and the group has every commit at its next host
      cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer();
      cluster.crashRegionServer(TestRegions.serverIndex(cluster, leader));
      for (int r = 0; r < rows.size(); r++) {
        int row = r;
        int last = commits - rows.size() + r; // the last commit that wrote this row
        byte[] value = g.transact(txn -> txn.get(TABLE, new Get(rows.get(row))).getValue(CF, Q));
        assertThat(Bytes.toInt(value, 0)).isEqualTo(last);
      }
      g.delete();
      try (Table table = cluster.getConnection().getTable(TABLE)) {
        assertThat(Bytes.toInt(table.get(new Get(rows.get(3))).getValue(CF, Q), 0)).isEqualTo(commits - 1);
      }
    }
  }
}
