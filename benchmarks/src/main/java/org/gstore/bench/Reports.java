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
 * Writes benchmark results: {@code summary.csv}, {@code summary.json}, PNG charts per workload, and for a sweep
 * over N the gaming chart against N.
 */
public final class Reports {
  public static final String CSV_HEADER = "system,workload,clients,ops,throughput_ops_s,p50_ms,p99_ms,abort_rate";
  /** A gaming point of a sweep over N: {@code gaming-n<N>}, or {@code gaming-n<N>-m<M>} for multi-key games. */
  private static final Pattern SWEEP_POINT = Pattern.compile("gaming-n(\\d+)(-m\\d+)?");

  private Reports() {}

  public static void write(List<Recorder.Result> results, Path dir) throws IOException {
    Files.createDirectories(dir);
    List<String> csv = new ArrayList<>();
    csv.add(CSV_HEADER);
    StringBuilder json = new StringBuilder("[\n");
    for (int i = 0; i < results.size(); i++) {
      Recorder.Result r = results.get(i);
      csv.add(String.format(Locale.ROOT, "%s,%s,%d,%d,%.1f,%.3f,%.3f,%.4f", r.system(), r.workload(), r.clients(),
          r.ops(), r.throughput(), r.p50Ms(), r.p99Ms(), r.abortRate()));
      json.append(String.format(Locale.ROOT, "  {\"system\": \"%s\", \"workload\": \"%s\", \"clients\": %d,"
          + " \"ops\": %d, \"throughput_ops_s\": %.1f, \"p50_ms\": %.3f, \"p99_ms\": %.3f, \"mean_ms\": %.3f,"
          + " \"abort_rate\": %.4f, \"goodput_ops_s\": %.1f%s}%s%n", r.system(), r.workload(), r.clients(), r.ops(),
          r.throughput(), r.p50Ms(), r.p99Ms(), r.meanMs(), r.abortRate(), r.throughput() * (1 - r.abortRate()),
          phasesJson(r), i + 1 < results.size() ? "," : ""));
    }
    json.append("]\n");
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
   * {@code gaming-sweep-latency.png}, mean latency per operation against N, one line per system and client count.
   */
  private static void sweepChart(Path dir, List<Recorder.Result> results) throws IOException {
    Map<String, TreeMap<Integer, Double>> lines = new TreeMap<>();
    for (Recorder.Result r : results) {
      Matcher sweep = SWEEP_POINT.matcher(r.workload());
      if (sweep.matches()) {
        int n = Integer.parseInt(sweep.group(1));
        lines.computeIfAbsent(r.system() + ", " + r.clients() + " clients", l -> new TreeMap<>()).put(n, r.meanMs());
      }
    }
    if (lines.values().stream().noneMatch(points -> points.size() > 1)) {
      return;
    }
    XYChart chart = new XYChartBuilder().width(800).height(500).title("gaming: latency vs operations per game (N)")
        .xAxisTitle("N (operations per game)").yAxisTitle("mean latency per operation (ms)").build();
    lines.forEach((name, points) -> chart.addSeries(name,
        points.keySet().stream().mapToDouble(Integer::doubleValue).toArray(),
        points.values().stream().mapToDouble(Double::doubleValue).toArray()));
    BitmapEncoder.saveBitmap(chart, dir.resolve("gaming-sweep-latency.png").toString(),
        BitmapEncoder.BitmapFormat.PNG);
  }

  private static void chart(Path dir, String workload, List<Recorder.Result> results, String what, String yAxis,
      ToDoubleFunction<Recorder.Result> value) throws IOException {
    XYChart chart = new XYChartBuilder().width(800).height(500).title(workload + ": " + what + " vs clients")
        .xAxisTitle("clients").yAxisTitle(yAxis).build();
    Map<String, List<Recorder.Result>> bySystem = new TreeMap<>();
    results.forEach(r -> bySystem.computeIfAbsent(r.system(), s -> new ArrayList<>()).add(r));
    for (Map.Entry<String, List<Recorder.Result>> s : bySystem.entrySet()) {
      double[] x = s.getValue().stream().mapToDouble(Recorder.Result::clients).toArray();
      double[] y = s.getValue().stream().mapToDouble(value).toArray();
      chart.addSeries(s.getKey(), x, y);
    }
    BitmapEncoder.saveBitmap(chart, dir.resolve(workload + "-" + what + ".png").toString(),
        BitmapEncoder.BitmapFormat.PNG);
  }
}
