package org.gstore.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.config.TestPlant;
import org.gstore.history.CheckReport;
import org.gstore.testing.GStoreMiniCluster;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The checker's power, kept in CI: each defect of {@link TestPlant} planted in a cluster of its own, the list-append
 * workload run on it while its groups' leader regions move, and the history must show anomalies; the same run on an
 * honest cluster must be clean. The longer runs on the process cluster are in docs/recovery.md ("Planted
 * defects").
 *
 * <p>Every cluster holds each commit {@value #SHIPPER_DELAY_MS} ms before shipping it: without that, a closing
 * region's commits are shipped within milliseconds, before the next host loads the group, and the skipped drain
 * loses nothing the run could see.
 */
class PlantedDefectsIT {
  private static final String SHIPPER_DELAY_MS = "1500";
  /** How long the workload runs on a planted cluster; the process cluster's runs caught each within minutes. */
  private static final Duration RUN = Duration.ofSeconds(45);
  private static final Duration MOVE_EVERY = Duration.ofSeconds(2);
  /** Runs a planted cluster gets to show its defect (each showed it in its first run here). */
  private static final int MAX_RUNS = 3;

  @ParameterizedTest
  @EnumSource(TestPlant.class)
  @Timeout(value = 12, unit = TimeUnit.MINUTES)
  void aPlantedDefectIsCaughtAndAnHonestClusterIsClean(TestPlant plant, @TempDir Path dir) throws Exception {
    Map<String, String> settings = new HashMap<>();
    settings.put(GStoreConfig.TEST_FAULTS_ENABLED, "true");
    settings.put(GStoreConfig.TEST_PLANT, plant.configName());
    settings.put(GStoreConfig.SHIPPER_DELAY_MS, SHIPPER_DELAY_MS);
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(3, settings)) {
      // a defect shows only when a fault meets it at the right moment: a planted cluster gets a few runs to show it
      int runs = plant == TestPlant.NONE ? 1 : MAX_RUNS;
      CheckReport report = null;
      for (int run = 1; run <= runs && (report == null || !report.verdict().equals("anomalies")); run++) {
        report = runWithMoves(cluster, dir.resolve("history-" + run + ".jsonl"), run);
        System.out.println("planted " + plant.configName() + ", run " + run + ": " + report.line());
      }
      String expected = plant == TestPlant.NONE ? "strict-serializable" : "anomalies";
      assertThat(report.verdict()).as("%s planted: %s", plant.configName(), report.line()).isEqualTo(expected);
    }
  }

  /** The list-append workload on a table of its own for {@link #RUN}, its leaders moving: the history's check. */
  private static CheckReport runWithMoves(GStoreMiniCluster cluster, Path history, int run) throws Exception {
    AppendWorkload workload = new AppendWorkload(cluster.getConnection(), TableName.valueOf("planted_" + run), 30, 6,
        run, history);
    workload.start();
    int moves;
    try {
      moves = moveLeadersFor(cluster.getConnection(), workload, RUN);
    } finally {
      workload.stop(Duration.ofMinutes(1));
    }
    System.out.println(moves + " leader moves, " + workload.transactionsOk() + " transactions ("
        + workload.conflicts() + " conflicts), " + workload.createsOk() + " groups");
    // a run with nothing in it would be clean on any cluster
    assertThat(moves).as("leader moves").isPositive();
    assertThat(workload.transactionsOk()).as("transactions acknowledged").isPositive();
    return workload.check();
  }

  /** Moves a live group's leader region to another server every {@link #MOVE_EVERY}, for {@code run}. */
  private static int moveLeadersFor(Connection connection, FaultTargets targets, Duration run) throws Exception {
    Random random = new Random(17);
    long end = System.nanoTime() + run.toNanos();
    int moves = 0;
    try (Admin admin = connection.getAdmin(); RegionLocator locator = connection.getRegionLocator(targets.table())) {
      while (System.nanoTime() < end) {
        TimeUnit.MILLISECONDS.sleep(MOVE_EVERY.toMillis());
        byte[] leader = targets.leaderRow(random);
        if (leader != null && move(admin, locator.getRegionLocation(leader, true), random)) {
          moves++;
        }
      }
    }
    return moves;
  }

  /** Moves {@code region} to another server; false if HBase refused (the region is already moving, say). */
  private static boolean move(Admin admin, HRegionLocation region, Random random) throws IOException {
    List<ServerName> others = new ArrayList<>(admin.getRegionServers());
    others.remove(region.getServerName());
    if (others.isEmpty()) {
      return false;
    }
    try {
      admin.move(region.getRegion().getEncodedNameAsBytes(), others.get(random.nextInt(others.size())));
      return true;
    } catch (org.apache.hadoop.hbase.HBaseIOException notOpen) {
      return false;
    }
  }
}
