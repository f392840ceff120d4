package org.gstore.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;

/**
 * Writes benchmark results: {@code summary.csv} (a row per system, workload, client count and round),
 * {@code summary.json} (those rows, G-Store's ratios to each other system with their spread over the rounds, and
 * the warm-up), PNG charts per workload (medians over the rounds, with their range as error bars), and for a sweep
 * over N the gaming chart against N.
 */
public final class Reports {
  public static final String CSV_HEADER =
      "system,workload,clients,ops,throughput_ops_s,p50_ms,p99_ms,abort_rate,round,cpu_ms_per_op";
  /** A gaming point of a sweep over N: {@code gaming-n<N>}, or {@code gaming-n<N>-m<M>} for multi-key games. */
  private static final Pattern SWEEP_POINT = Pattern.compile("gaming-n(\\d+)(-m\\d+)?");

  private Reports() {}

  public static void write(Benchmark.Run run, Path dir) throws IOException {
    Files.createDirectories(dir);
    List<Recorder.Result> results = run.results();
    List<String> csv = new ArrayList<>();
    csv.add(CSV_HEADER);
    StringBuilder json = new StringBuilder("{\n");
    Warmup.Outcome warmup = run.warmup();
    json.append(String.format(Locale.ROOT, "  \"warmup\": {\"rounds\": %d, \"seconds\": %.1f, \"settled\": %b,"
        + " \"last_round_jit_share\": %s, \"jit_seconds\": %.1f},%n", warmup.rounds(), warmup.millis() / 1e3,
        warmup.settled(), number(warmup.lastShare()), warmup.jitMillis() / 1e3));
    json.append("  \"cpu_measure\": \"").append(run.cpuMeasure().replace("\"", "'")).append("\",\n");
    json.append(String.format(Locale.ROOT, "  \"idle_cpu_ms_per_s\": %.1f,%n", run.idleCpuMillisPerSecond()));
    json.append("  \"points\": [\n");
    for (int i = 0; i < results.size(); i++) {
      Recorder.Result r = results.get(i);
      csv.add(String.format(Locale.ROOT, "%s,%s,%d,%d,%.1f,%.3f,%.3f,%.4f,%d,%s", r.system(), r.workload(),
          r.clients(), r.ops(), r.throughput(), r.p50Ms(), r.p99Ms(), r.abortRate(), r.round(),
          Double.isNaN(r.cpuMsPerOp()) ? "" : String.format(Locale.ROOT, "%.3f", r.cpuMsPerOp())));
      json.append(String.format(Locale.ROOT, "    {\"system\": \"%s\", \"workload\": \"%s\", \"clients\": %d,"
          + " \"round\": %d, \"ops\": %d, \"throughput_ops_s\": %.1f, \"p50_ms\": %.3f, \"p99_ms\": %.3f,"
          + " \"mean_ms\": %.3f, \"abort_rate\": %.4f, \"goodput_ops_s\": %.1f, \"cpu_ms_per_op\": %s,"
          + " \"calls_per_op\": %s%s}%s%n",
          r.system(), r.workload(), r.clients(), r.round(), r.ops(), r.throughput(), r.p50Ms(), r.p99Ms(),
          r.meanMs(), r.abortRate(), r.throughput() * (1 - r.abortRate()), number(r.cpuMsPerOp()),
          callsJson(r.calls()), phasesJson(r),
          i + 1 < results.size() ? "," : ""));
    }
    json.append("  ],\n  \"ratios\": [\n");
    for (int i = 0; i < run.ratios().size(); i++) {
      Comparison.Ratio r = run.ratios().get(i);
      json.append(String.format(Locale.ROOT, "    {\"workload\": \"%s\", \"clients\": %d, \"of\": \"%s\","
          + " \"to\": \"%s\", \"mean_latency\": %s, \"cpu_per_op\": %s}%s%n", r.workload(), r.clients(),
          Comparison.SUBJECT, r.other(), spreadJson(r.latency()), spreadJson(r.cpu()),
          i + 1 < run.ratios().size() ? "," : ""));
    }
    json.append("  ]\n}\n");
    Files.write(dir.resolve("summary.csv"), csv, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("summary.json"), json, StandardCharsets.UTF_8);
    Map<String, List<Recorder.Result>> byWorkload = new TreeMap<>();
    results.forEach(r -> byWorkload.computeIfAbsent(r.workload(), w -> new ArrayList<>()).add(r));
    for (Map.Entry<String, List<Recorder.Result>> e : byWorkload.entrySet()) {
      chart(dir, e.getKey(), e.getValue(), "latency", "mean latency per operation (ms)", Recorder.Result::meanMs);
      chart(dir, e.getKey(), e.getValue(), "throughput", "operations per second", Recorder.Result::throughput);
    }
    sweepChart(dir, results);
  }

  private static String spreadJson(Comparison.Spread s) {
    return String.format(Locale.ROOT, "{\"median\": %s, \"min\": %s, \"max\": %s, \"rounds\": %d}",
        number(s.median()), number(s.min()), number(s.max()), s.rounds());
  }

  /**
   * {@code {"rpc": .., "wal_syncs": .., "namenode": .., "datagrams": ..}}: G-Store's servers' calls per operation;
   * null where not measured (another system, a server that did not answer).
   */
  private static String callsJson(ServerCalls.PerOp calls) {
    if (calls == null || !calls.known()) {
      return "null";
    }
    return String.format(Locale.ROOT, "{\"rpc\": %s, \"wal_syncs\": %s, \"namenode\": %s, \"datagrams\": %s}",
        number(calls.rpc()), number(calls.walSyncs()), number(calls.namenode()), number(calls.datagrams()));
  }

  /** A JSON number, or null for NaN (unknown). */
  private static String number(double value) {
    return Double.isNaN(value) || Double.isInfinite(value) ? "null" : String.format(Locale.ROOT, "%.4f", value);
  }

  /** {@code , "phases": {"create": {...}, ...}}, or nothing when the workload recorded no phase. */
  private static String phasesJson(Recorder.Result r) {
    if (r.phases().isEmpty()) {
      return "";
    }
    List<String> entries = new ArrayList<>();
    r.phases().forEach((name, p) -> entries.add(String.format(Locale.ROOT, "\"%s\": {\"count\": %d, \"p50_ms\": %.3f,"
        + " \"p99_ms\": %.3f, \"mean_ms\": %.3f}", name, p.count(), p.p50Ms(), p.p99Ms(), p.meanMs())));
    return ", \"phases\": {" + String.join(", ", entries) + "}";
  }

  /**
   * With the gaming workload run for several N ({@code gaming-n<N>}), the paper's Figure 11 view as well:
   * {@code gaming-sweep-latency.png}, mean latency per operation against N (the median over the rounds, their
   * range as error bars), one line per system and client count.
   */
  private static void sweepChart(Path dir, List<Recorder.Result> results) throws IOException {
    Map<String, TreeMap<Integer, List<Double>>> lines = new TreeMap<>();
    for (Recorder.Result r : results) {
      Matcher sweep = SWEEP_POINT.matcher(r.workload());
      if (sweep.matches()) {
        int n = Integer.parseInt(sweep.group(1));
        lines.computeIfAbsent(r.system() + ", " + r.clients() + " clients", l -> new TreeMap<>())
            .computeIfAbsent(n, x -> new ArrayList<>()).add(r.meanMs());
      }
    }
    if (lines.values().stream().noneMatch(points -> points.size() > 1)) {
      return;
    }
    XYChart chart = new XYChartBuilder().width(800).height(500).title("gaming: latency vs operations per game (N)")
        .xAxisTitle("N (operations per game)").yAxisTitle("mean latency per operation (ms)").build();
    lines.forEach((name, points) -> addSeries(chart, name, points));
    BitmapEncoder.saveBitmap(chart, dir.resolve("gaming-sweep-latency.png").toString(),
        BitmapEncoder.BitmapFormat.PNG);
  }

  private static void chart(Path dir, String workload, List<Recorder.Result> results, String what, String yAxis,
      ToDoubleFunction<Recorder.Result> value) throws IOException {
    XYChart chart = new XYChartBuilder().width(800).height(500).title(workload + ": " + what + " vs clients")
        .xAxisTitle("clients").yAxisTitle(yAxis).build();
    Map<String, TreeMap<Integer, List<Double>>> bySystem = new TreeMap<>();
    results.forEach(r -> bySystem.computeIfAbsent(r.system(), s -> new TreeMap<>())
        .computeIfAbsent(r.clients(), c -> new ArrayList<>()).add(value.applyAsDouble(r)));
    bySystem.forEach((system, points) -> addSeries(chart, system, points));
    BitmapEncoder.saveBitmap(chart, dir.resolve(workload + "-" + what + ".png").toString(),
        BitmapEncoder.BitmapFormat.PNG);
  }

  /** A line through each x's median over the rounds, with error bars half the rounds' range wide each way. */
  private static void addSeries(XYChart chart, String name, TreeMap<Integer, List<Double>> points) {
    double[] x = points.keySet().stream().mapToDouble(Integer::doubleValue).toArray();
    List<Comparison.Spread> spreads = points.values().stream().map(Comparison.Spread::of).toList();
    double[] y = spreads.stream().mapToDouble(Comparison.Spread::median).toArray();
    if (spreads.stream().allMatch(sp -> sp.rounds() <= 1)) {
      chart.addSeries(name, x, y);
    } else {
      chart.addSeries(name, x, y, spreads.stream().mapToDouble(sp -> (sp.max() - sp.min()) / 2).toArray());
    }
  }
}
