package org.gstore.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.IntCountsHistogram;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A chaos run over time, as the recovery paper draws throughput across a failure: for each workload, the
 * transactions committed in each second of the run and their 99th-percentile latency, with each fault where it
 * began and ended. Written as {@code timeline.csv} (a row a second) and {@code timeline.png}. Thread-safe.
 */
public final class Timeline {
  /** A fault's interval, in seconds from the start of the run. */
  record FaultSpan(String what, double from, double to) {}

  /** Latencies are kept in milliseconds, up to ten minutes, to two significant digits: a few KB a second. */
  private static final long HIGHEST_MILLIS = TimeUnit.MINUTES.toMillis(10);

  /** The workload of plain HBase operations run beside G-Store's, to compare stalls with. */
  public static final String PLAIN_HBASE = "hbase";

  private final long startNanos;
  private final Stalls stalls = new Stalls();
  /** Per workload: per second of the run, the commit latencies. */
  private final Map<String, Map<Integer, IntCountsHistogram>> seconds = new ConcurrentHashMap<>();
  private final List<FaultSpan> faults = new ArrayList<>();

  public Timeline(long startNanos) {
    this.startNanos = startNanos;
  }

  /**
   * A transaction of {@code workload} committed now, {@code latencyNanos} after it began, on the calling thread (a
   * client of the run's {@link #stalls()}; {@link #PLAIN_HBASE}'s are plain HBase's, every other G-Store's).
   */
  public void committed(String workload, long latencyNanos) {
    long now = System.nanoTime();
    stalls.succeeded(Thread.currentThread().getName(), !PLAIN_HBASE.equals(workload), now);
    int second = (int) TimeUnit.NANOSECONDS.toSeconds(now - startNanos);
    IntCountsHistogram h = seconds.computeIfAbsent(workload, w -> new ConcurrentHashMap<>())
        .computeIfAbsent(second, s -> new IntCountsHistogram(HIGHEST_MILLIS, 2));
    synchronized (h) {
      h.recordValue(Math.min(Math.max(TimeUnit.NANOSECONDS.toMillis(latencyNanos), 0), HIGHEST_MILLIS));
    }
  }

  /**
   * A call of {@code workload} got the system's definite answer now, on the calling thread, without committing: an
   * abort by conflict, a group refused or gone, a group created or deleted. The system answered, so its client did
   * not stall ({@link #stalls()}); only commits are counted per second.
   */
  public void answered(String workload) {
    stalls.succeeded(Thread.currentThread().getName(), !PLAIN_HBASE.equals(workload), System.nanoTime());
  }

  /** A fault, described by {@code what}, ran from {@code fromNanos} to {@code toNanos} (System.nanoTime). */
  public synchronized void fault(String what, long fromNanos, long toNanos) {
    // one line, no commas: a CSV cell, and a chart label (a line break there made XChart fail)
    String oneLine = what.replaceAll("\\s+", " ").replace(',', ';').trim();
    faults.add(new FaultSpan(oneLine.isEmpty() ? "fault" : oneLine, (fromNanos - startNanos) / 1e9,
        (toNanos - startNanos) / 1e9));
  }

  /** Each client's successes, for the stalls of each fault. */
  public Stalls stalls() {
    return stalls;
  }

  synchronized List<FaultSpan> faults() {
    return List.copyOf(faults);
  }

  /** {@code timeline.csv} and {@code timeline.png} in {@code dir}; returns the picture's path. */
  public Path write(Path dir) throws IOException {
    Files.createDirectories(dir);
    Map<String, TreeMap<Integer, IntCountsHistogram>> sorted = new TreeMap<>();
    seconds.forEach((w, byS) -> sorted.put(w, new TreeMap<>(byS)));
    List<FaultSpan> spans = faults();
    int last = Math.max(sorted.values().stream().filter(m -> !m.isEmpty()).mapToInt(TreeMap::lastKey).max().orElse(0),
        (int) spans.stream().mapToDouble(FaultSpan::to).max().orElse(0)); // a fault that stopped everything shows
    System.setProperty("java.awt.headless", "true");
    StringBuilder csv = new StringBuilder("second");
    sorted.keySet().forEach(w -> csv.append(',').append(w).append("_committed,").append(w).append("_p99_ms"));
    csv.append(",faults\n");
    for (int s = 0; s <= last; s++) {
      csv.append(s);
      for (TreeMap<Integer, IntCountsHistogram> byS : sorted.values()) {
        IntCountsHistogram h = byS.get(s);
        csv.append(',').append(h == null ? 0 : h.getTotalCount()).append(',')
            .append(h == null ? "" : String.format(Locale.ROOT, "%.1f", (double) h.getValueAtPercentile(99)));
      }
      int second = s;
      csv.append(',').append(String.join(" + ", spans.stream()
          .filter(f -> f.from() < second + 1 && f.to() >= second).map(FaultSpan::what).toList())).append('\n');
    }
    Files.writeString(dir.resolve("timeline.csv"), csv, StandardCharsets.UTF_8);

    XYChart chart = new XYChartBuilder().width(1200).height(600).title("chaos run: commits and p99 latency per"
        + " second; faults shaded").xAxisTitle("seconds into the run").yAxisTitle("transactions committed per second")
        .build();
    chart.getStyler().setYAxisGroupPosition(1, org.knowm.xchart.style.Styler.YAxisPosition.Right);
    chart.setYAxisGroupTitle(1, "p99 latency (ms)");
    double peak = 1;
    for (Map.Entry<String, TreeMap<Integer, IntCountsHistogram>> w : sorted.entrySet()) {
      double[] x = new double[last + 1];
      double[] committed = new double[last + 1];
      double[] p99 = new double[last + 1];
      for (int s = 0; s <= last; s++) {
        IntCountsHistogram h = w.getValue().get(s);
        x[s] = s;
        committed[s] = h == null ? 0 : h.getTotalCount();
        p99[s] = h == null ? 0 : (double) h.getValueAtPercentile(99);
        peak = Math.max(peak, committed[s]);
      }
      chart.addSeries(w.getKey() + " commits/s", x, committed).setMarker(SeriesMarkers.NONE);
      XYSeries latency = chart.addSeries(w.getKey() + " p99 ms", x, p99);
      latency.setMarker(SeriesMarkers.NONE);
      latency.setYAxisGroup(1);
    }
    for (int i = 0; i < spans.size(); i++) { // each fault a shaded band on the throughput axis; the CSV names them
      FaultSpan f = spans.get(i);
      XYSeries band = chart.addSeries(i == 0 ? "faults (timeline.csv names each)" : "fault " + i,
          new double[] {f.from(), f.from(), f.to(), f.to()}, new double[] {0, peak, peak, 0});
      band.setShowInLegend(i == 0);
      band.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Area);
      band.setMarker(SeriesMarkers.NONE);
      band.setFillColor(new java.awt.Color(200, 60, 60, 40));
      band.setLineColor(new java.awt.Color(200, 60, 60, 90));
    }
    Path png = dir.resolve("timeline.png");
    BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    return png;
  }
}
