package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;
import org.gstore.common.protocol.GroupRef;
import org.gstore.coprocessor.GStoreRegionCoprocessor;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.server.GStoreServer;
import org.gstore.coprocessor.server.GStoreServers;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.recovery.hbase.WalRecovery;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 35, item 4, on a real cluster: a hundred G-Store regions moved onto one region server while a dead server's
 * WAL cannot be replayed (its commit writes a disabled table). Before, each region's open waited for the stuck
 * replay's attempt (a minute) in turn on the server's one loader thread; now a region whose groups the log does not
 * hold serves within seconds. Prints how long each took, from its move to G-Store serving it.
 */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class StuckReplayRegionOpensIT {
  private static final int REGIONS = 100;
  private static final TableName HUNDRED = TableName.valueOf("hundred_regions");
  private static final TableName DISABLED = TableName.valueOf("stuck_replay_target");

  @Test
  void aHundredRegionsMovedOntoAServerServeWithinSecondsWhileADeadServersReplayIsStuck(GStoreMiniCluster cluster)
      throws Exception {
    Path root = GStoreConfig.walRoot(cluster.getConfiguration());
    byte[][] splits = new byte[REGIONS - 1][];
    for (int i = 1; i < REGIONS; i++) {
      splits[i - 1] = Bytes.toBytes(String.format("r%03d", i));
    }
    cluster.createTable(DISABLED, new byte[][] {Bytes.toBytes("a")}, null).close();
    GroupRef stuck = DeadServerLogs.group("stuck-for-a-hundred");
    String stuckServer = "stuck-hundred.example.com,16020,9";
    ExecutorService movers = Executors.newFixedThreadPool(8);
    try (FileSystem deadFs = FileSystem.newInstance(root.toUri(), cluster.getConfiguration());
        Admin admin = cluster.getConnection().getAdmin()) {
      // as HBase assigns them (GStoreMiniCluster.createTable would spread them one move at a time)
      admin.createTable(TableDescriptorBuilder.newBuilder(HUNDRED).setCoprocessor(GStoreRegionCoprocessor.class.getName())
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build(), splits);
      cluster.getTestingUtility().waitTableAvailable(HUNDRED);
      SharedWal wal = DeadServerLogs.openWal(deadFs, root, stuckServer);
      wal.append(stuck, DeadServerLogs.record(stuck, "waits-for-a-disabled-table", DISABLED)).get(30, TimeUnit.SECONDS);
      wal.close();
      admin.disableTable(DISABLED);
      try {
        ServerName target = admin.getRegionServers().stream().sorted().findFirst().orElseThrow();
        GStoreServer gstore = GStoreServers.on(target);
        List<RegionInfo> moving = new ArrayList<>();
        for (RegionInfo region : admin.getRegions(HUNDRED)) {
          if (!admin.getRegions(target).contains(region)) {
            moving.add(region);
          }
        }
        long allStart = System.nanoTime();
        List<Future<Long>> served = new ArrayList<>();
        for (RegionInfo region : moving) {
          served.add(movers.submit(() -> {
            long start = System.nanoTime();
            try (Admin own = cluster.getConnection().getAdmin()) {
              own.move(region.getEncodedNameAsBytes(), target);
            }
            Awaitility.await("G-Store serves " + region.getEncodedName()).atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(20)).until(() -> gstore.isReady(region));
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          }));
        }
        List<Long> millis = new ArrayList<>();
        for (Future<Long> f : served) {
          millis.add(f.get(3, TimeUnit.MINUTES));
        }
        long all = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - allStart);
        millis.sort(null);
        System.out.printf("stuck replay: %d regions moved onto one server (8 moves at a time) served, from each move,"
            + " in p50=%d ms p90=%d ms max=%d ms; all in %d ms%n", millis.size(), millis.get(millis.size() / 2),
            millis.get(millis.size() * 9 / 10), millis.get(millis.size() - 1), all);
        assertThat(millis.get(millis.size() - 1)).as("no region waits for the stuck replay's attempt")
            .isLessThan(WalRecovery.DEFAULT_ATTEMPT_MILLIS / 2);
        assertThat(deadFs.exists(new Path(root, stuckServer + WalRecovery.RECOVERING))
            || deadFs.exists(new Path(root, stuckServer))).as("the log is still waiting to be replayed").isTrue();
      } finally {
        admin.enableTable(DISABLED); // the log's next attempt goes through
        admin.disableTable(HUNDRED);
        admin.deleteTable(HUNDRED);
      }
    } finally {
      movers.shutdownNow();
    }
  }
}
