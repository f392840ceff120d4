package org.gstore.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.gstore.testing.GStoreMiniCluster;
import org.gstore.testing.GStoreTables;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.gstore.bench.omid.OmidSettings;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark harness on every workload, briefly: what it counts and what it writes. */
@WithMiniCluster(regionServers = 3)
class BenchmarkIT {
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void everyWorkloadRunsOnBothSystemsAndTheReportsAreWritten(GStoreMiniCluster cluster, @TempDir Path out)
      throws Exception {
    Benchmark.Settings settings = new Benchmark.Settings(List.of(1, 3),
        List.of("gaming", "group-create", "ycsb-a", "ycsb-f"), 10, List.of(5), 2, 2_000, false, 500, 2_500, 2, 3,
        true, List.of(BenchSystem.GSTORE, BenchSystem.HBASE, BenchSystem.OMID), OmidSettings.BEST, 1, 300, 1_000, 1, null);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    Benchmark.Run run = new Benchmark(cluster.getConnection(), settings,
        new PrintStream(log, true, StandardCharsets.UTF_8)).run();
    List<Recorder.Result> results = run.results();

    // group-create runs on G-Store only; the others on all three systems; each at 1 and 3 clients (the warm-up
    // round before them reports nothing)
    assertThat(results).hasSize(2 + 3 * 3 * 2);
    for (Recorder.Result r : results) {
      assertThat(r.ops()).as("operations of %s", r).isPositive();
      assertThat(r.throughput()).isPositive();
      assertThat(r.p99Ms()).isGreaterThanOrEqualTo(r.p50Ms()).isPositive();
      assertThat(r.abortRate()).isBetween(0.0, 1.0);
      assertThat(r.cpuMsPerOp()).as("the cluster's CPU per operation of %s", r).isPositive();
      if (r.system().equals("hbase") || r.system().equals("gstore") && !r.workload().startsWith("ycsb")) {
        assertThat(r.abortRate()).as("no shared transactions, no aborts: %s", r).isZero();
      }
      if (r.system().equals("gstore") && r.workload().equals("group-create")) {
        // a lifecycle writes state (HBase calls), checks its fence after each write (NameNode) and talks to its
        // members (datagrams); the state is in the tables, not the WAL, by default
        assertThat(r.calls().known()).as("calls counted for %s", r).isTrue();
        assertThat(r.calls().rpc()).as("HBase calls per lifecycle").isPositive();
        assertThat(r.calls().namenode()).as("fence checks per lifecycle").isPositive();
        assertThat(r.calls().datagrams()).as("datagrams per lifecycle").isPositive();
      } else if (!r.system().equals("gstore")) {
        assertThat(r.calls().known()).as("no G-Store calls to count for %s", r).isFalse();
      }
    }

    assertThat(run.warmup().rounds()).as("the warm-up ran, within its cap").isPositive();
    assertThat(run.idleCpuMillisPerSecond()).as("an idle cluster still spends some CPU (chores, heartbeats), less"
        + " than every core").isPositive().isLessThan(1_000.0 * Runtime.getRuntime().availableProcessors());
    assertThat(run.ratios()).as("G-Store against HBase and Omid at each client count of three workloads")
        .hasSize(3 * 2 * 2).allSatisfy(ratio -> {
          assertThat(ratio.latency().rounds()).isEqualTo(1);
          assertThat(ratio.latency().median()).isPositive();
          assertThat(ratio.cpu().median()).isPositive();
        });

    Reports.write(run, out);
    List<String> csv = Files.readAllLines(out.resolve("summary.csv"));
    assertThat(csv.get(0)).isEqualTo(Reports.CSV_HEADER);
    assertThat(csv).hasSize(results.size() + 1);
    assertThat(csv).anyMatch(l -> l.startsWith("gstore,gaming,3,")).anyMatch(l -> l.startsWith("hbase,gaming,1,"))
        .anyMatch(l -> l.startsWith("gstore,group-create,1,")).anyMatch(l -> l.startsWith("omid,ycsb-f-zipfian,3,"))
        .noneMatch(l -> l.startsWith("omid,group-create"));
    assertThat(Files.readString(out.resolve("summary.json"))).contains("\"goodput_ops_s\"", "\"cpu_ms_per_op\"",
        "\"ratios\"", "\"warmup\"", "\"calls_per_op\": {\"rpc\": ", "\"calls_per_op\": null");
    for (String chart : List.of("gaming-latency.png", "group-create-throughput.png", "ycsb-f-zipfian-latency.png")) {
      byte[] png = Files.readAllBytes(out.resolve(chart));
      assertThat(png).as(chart).hasSizeGreaterThan(1_000);
      assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
    }

    // Omid's transactions wrote its own copy of the players: scores other than the initial 0 are there
    try (Table t = cluster.getConnection().getTable(Players.OMID_TABLE);
        ResultScanner rs = t.getScanner(new Scan().readAllVersions().addColumn(Players.CF, Players.SCORE))) {
      long written = 0;
      for (Result r : rs) {
        written += r.getColumnCells(Players.CF, Players.SCORE).stream()
            .filter(c -> org.apache.hadoop.hbase.util.Bytes.toInt(org.apache.hadoop.hbase.CellUtil.cloneValue(c)) != 0)
            .count();
      }
      assertThat(written).as("Omid's committed writes").isPositive();
    }

    // the layout the run measured: the state tables on the first region server by name, the players round-robin
    List<ServerName> servers;
    try (Admin admin = cluster.getConnection().getAdmin()) {
      servers = admin.getRegionServers().stream().sorted(Comparator.comparing(
          ServerName::getServerName)).toList();
    }
    for (String state : List.of("gstore:groups", "gstore:owners", "gstore:nodes", "gstore:outcomes")) {
      assertThat(hosts(cluster, TableName.valueOf(state))).as(state).containsOnly(servers.get(0));
    }
    List<ServerName> players = hosts(cluster, Players.TABLE);
    for (int i = 0; i < players.size(); i++) {
      assertThat(players.get(i)).as("region %d of the players", i).isEqualTo(servers.get(i % servers.size()));
    }

    // every group the workloads formed was dissolved: no player is left fenced
    assertThat(GStoreTables.rowCount(cluster.getConnection(), TableName.valueOf("gstore:owners")))
        .as("owner records left").isZero();
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aSweepOverNRunsTheGamingWorkloadOncePerNWithAChartEachAndItsSystemsInterleaved(GStoreMiniCluster cluster,
      @TempDir Path out) throws Exception {
    Benchmark.Settings settings = new Benchmark.Settings(List.of(1), List.of("gaming"), 10, List.of(3, 6), 2,
        2_000, false, 300, 1_000, 2, 3, true, List.of(BenchSystem.GSTORE, BenchSystem.HBASE), OmidSettings.BEST, 1,
        0, 0, 2, null);
    Benchmark.Run run = new Benchmark(cluster.getConnection(), settings,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();

    assertThat(run.results()).extracting(r -> r.system() + "/" + r.workload() + "/" + r.round()).containsExactly(
        "gstore/gaming-n3/1", "hbase/gaming-n3/1", "gstore/gaming-n3/2", "hbase/gaming-n3/2",
        "gstore/gaming-n6/1", "hbase/gaming-n6/1", "gstore/gaming-n6/2", "hbase/gaming-n6/2");
    assertThat(run.warmup().rounds()).as("no warm-up asked for").isZero();
    assertThat(run.ratios()).extracting(Comparison.Ratio::workload).containsExactly("gaming-n3", "gaming-n6");
    for (Comparison.Ratio ratio : run.ratios()) { // the median and range of the two rounds' own ratios
      List<Double> perRound = new java.util.ArrayList<>();
      for (int round = 1; round <= 2; round++) {
        int r = round;
        double gstore = run.results().stream().filter(x -> x.workload().equals(ratio.workload())
            && x.round() == r && x.system().equals("gstore")).findFirst().orElseThrow().meanMs();
        double hbase = run.results().stream().filter(x -> x.workload().equals(ratio.workload())
            && x.round() == r && x.system().equals("hbase")).findFirst().orElseThrow().meanMs();
        perRound.add(gstore / hbase);
      }
      assertThat(ratio.latency().rounds()).isEqualTo(2);
      assertThat(ratio.latency().min()).isCloseTo(java.util.Collections.min(perRound), within(1e-9));
      assertThat(ratio.latency().max()).isCloseTo(java.util.Collections.max(perRound), within(1e-9));
      assertThat(ratio.latency().median()).isCloseTo((perRound.get(0) + perRound.get(1)) / 2, within(1e-9));
    }
    Reports.write(run, out);
    assertThat(Files.readAllLines(out.resolve("summary.csv"))).hasSize(9);
    assertThat(out.resolve("gaming-n3-latency.png")).exists();
    assertThat(out.resolve("gaming-n6-latency.png")).exists();
    assertThat(out.resolve("gaming-sweep-latency.png")).exists();
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aMultiKeyGameTouchesSeveralPlayersPerOperationOnEverySystemAndItsProfileIsRecorded(GStoreMiniCluster cluster,
      @TempDir Path dir) throws Exception {
    Benchmark.Settings settings = new Benchmark.Settings(List.of(2), List.of("gaming"), 10, List.of(4), 2, 2_000,
        false, 300, 1_500, 2, 3, true, List.of(BenchSystem.GSTORE, BenchSystem.HBASE), OmidSettings.BEST, 4, 0, 0,
        1, dir.resolve("points.jfr"));
    List<Recorder.Result> results = new Benchmark(cluster.getConnection(), settings,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run().results();

    assertThat(results).extracting(Recorder.Result::workload).containsOnly("gaming-m4");
    assertThat(results).extracting(Recorder.Result::system).containsExactly("gstore", "hbase");
    assertThat(results).allSatisfy(r -> assertThat(r.ops()).isPositive());
    assertThat(ProfileSteps.of(dir.resolve("points.jfr")).gstoreMethods()).as("the measured points' profile")
        .isNotEmpty();
    // a bet reads four players and writes all four: scores other than 0 and the operation numbers appear
    try (Table t = cluster.getConnection().getTable(Players.TABLE);
        ResultScanner rs = t.getScanner(new Scan().addColumn(Players.CF, Players.SCORE))) {
      boolean negative = false;
      for (Result r : rs) {
        negative |= org.apache.hadoop.hbase.util.Bytes.toInt(r.getValue(Players.CF, Players.SCORE)) < 0;
      }
      assertThat(negative).as("a bet took chips from a player who had none").isTrue();
    }
  }

  /** Where the table's regions are, in key order. */
  private static List<ServerName> hosts(GStoreMiniCluster cluster, TableName table) throws IOException {
    return EmbeddedLayout.locations(cluster.getConnection(), table).stream().map(HRegionLocation::getServerName)
        .toList();
  }

}
