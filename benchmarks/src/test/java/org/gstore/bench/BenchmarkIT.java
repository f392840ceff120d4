package org.gstore.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.gstore.testing.GStoreMiniCluster;
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
        true, List.of(BenchSystem.GSTORE, BenchSystem.HBASE, BenchSystem.OMID), OmidSettings.BEST, 1, 300);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<Recorder.Result> results = new Benchmark(cluster.getConnection(), settings,
        new PrintStream(log, true, StandardCharsets.UTF_8)).run();

    // group-create runs on G-Store only; the others on all three systems; each at 1 and 3 clients (the warm-up
    // round before them reports nothing)
    assertThat(results).hasSize(2 + 3 * 3 * 2);
    for (Recorder.Result r : results) {
      assertThat(r.ops()).as("operations of %s", r).isPositive();
      assertThat(r.throughput()).isPositive();
      assertThat(r.p99Ms()).isGreaterThanOrEqualTo(r.p50Ms()).isPositive();
      assertThat(r.abortRate()).isBetween(0.0, 1.0);
      if (r.system().equals("hbase") || r.system().equals("gstore") && !r.workload().startsWith("ycsb")) {
        assertThat(r.abortRate()).as("no shared transactions, no aborts: %s", r).isZero();
      }
    }

    Reports.write(results, out);
    List<String> csv = Files.readAllLines(out.resolve("summary.csv"));
    assertThat(csv.get(0)).isEqualTo("system,workload,clients,ops,throughput_ops_s,p50_ms,p99_ms,abort_rate");
    assertThat(csv).hasSize(results.size() + 1);
    assertThat(csv).anyMatch(l -> l.startsWith("gstore,gaming,3,")).anyMatch(l -> l.startsWith("hbase,gaming,1,"))
        .anyMatch(l -> l.startsWith("gstore,group-create,1,")).anyMatch(l -> l.startsWith("omid,ycsb-f-zipfian,3,"))
        .noneMatch(l -> l.startsWith("omid,group-create"));
    assertThat(Files.readString(out.resolve("summary.json"))).contains("\"goodput_ops_s\"");
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

    // every group the workloads formed was dissolved: no player is left fenced
    assertThat(GStoreTables.rowCount(cluster.getConnection(), TableName.valueOf("gstore:owners")))
        .as("owner records left").isZero();
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aSweepOverNRunsTheGamingWorkloadOncePerNWithAChartEach(GStoreMiniCluster cluster, @TempDir Path out)
      throws Exception {
    Benchmark.Settings settings = new Benchmark.Settings(List.of(1), List.of("gaming"), 10, List.of(3, 6), 2,
        2_000, false, 300, 1_500, 2, 3, true, List.of(BenchSystem.GSTORE, BenchSystem.HBASE), OmidSettings.BEST, 1,
        0);
    List<Recorder.Result> results = new Benchmark(cluster.getConnection(), settings,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();

    assertThat(results).extracting(r -> r.system() + "/" + r.workload()).containsExactlyInAnyOrder(
        "gstore/gaming-n3", "hbase/gaming-n3", "gstore/gaming-n6", "hbase/gaming-n6");
    Reports.write(results, out);
    assertThat(out.resolve("gaming-n3-latency.png")).exists();
    assertThat(out.resolve("gaming-n6-latency.png")).exists();
    assertThat(out.resolve("gaming-sweep-latency.png")).exists();
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aMultiKeyGameTouchesSeveralPlayersPerOperationOnEverySystem(GStoreMiniCluster cluster) throws Exception {
    Benchmark.Settings settings = new Benchmark.Settings(List.of(2), List.of("gaming"), 10, List.of(4), 2, 2_000,
        false, 300, 1_500, 2, 3, true, List.of(BenchSystem.GSTORE, BenchSystem.HBASE), OmidSettings.BEST, 4, 0);
    List<Recorder.Result> results = new Benchmark(cluster.getConnection(), settings,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();

    assertThat(results).extracting(Recorder.Result::workload).containsOnly("gaming-m4");
    assertThat(results).extracting(Recorder.Result::system).containsExactly("gstore", "hbase");
    assertThat(results).allSatisfy(r -> assertThat(r.ops()).isPositive());
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
}
