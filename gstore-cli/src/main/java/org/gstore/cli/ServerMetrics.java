package org.gstore.cli;

import java.io.PrintStream;
import java.util.Optional;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.Histogram;
import org.apache.hadoop.hbase.metrics.Metric;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;

/**
 * G-Store's region-server metrics, read in-process: only meaningful when the cluster is embedded in this JVM,
 * where its region servers share one registry (counters, histograms and counts add up over them; a delay is the
 * largest; see GaugeSources).
 */
final class ServerMetrics {
  private ServerMetrics() {}

  static long counter(String name) {
    return metric(name).map(m -> ((Counter) m).getCount()).orElse(0L);
  }

  static long gauge(String name) {
    return metric(name).map(m -> ((Number) ((Gauge<?>) m).getValue()).longValue()).orElse(0L);
  }

  /** Median and 99th percentile of a histogram. */
  static long[] medianAnd99th(String histogram) {
    return metric(histogram).map(m -> ((Histogram) m).snapshot())
        .map(snap -> new long[] {snap.getMedian(), snap.get99thPercentile()}).orElse(new long[] {0, 0});
  }

  /**
   * Where the servers spent their time: commit latency at the leader, protocol state writes (the durable steps of
   * every group create and delete), shared-WAL syncs and protocol retries. HBase's histograms are approximate and
   * start over whenever metrics are collected, so their percentiles cover the recent past, not a whole run.
   */
  static void printServerLatencies(PrintStream out) {
    long[] commit = medianAnd99th("txnCommitLatencyMicros");
    out.printf("  leader commit latency p50 %.1f ms, p99 %.1f ms (validation + WAL sync, at the leader)%n",
        commit[0] / 1e3, commit[1] / 1e3);
    long[] state = medianAnd99th("stateWriteLatencyMicros");
    out.printf("  protocol state writes %d, p50 %.1f ms, p99 %.1f ms (batched, durable, on the G-Store tables)%n",
        counter("stateWrites"), state[0] / 1e3, state[1] / 1e3);
    long[] sync = medianAnd99th("walSyncLatencyMicros");
    out.printf("  shared-WAL syncs      p50 %.1f ms, p99 %.1f ms%n", sync[0] / 1e3, sync[1] / 1e3);
    long sent = gauge("protocolMessagesSent");
    long retried = gauge("protocolMessagesRetried");
    out.printf("  protocol messages     %d sent, %d of them retries (%.1f%%); retry timeout now %d ms (the"
        + " longest of the region servers')%n", sent, retried, 100.0 * retried / Math.max(1, sent),
        gauge("protocolRetryTimeoutMillis"));
  }

  private static Optional<Metric> metric(String name) {
    for (MetricRegistry registry : MetricRegistries.global().getMetricRegistries()) {
      if (registry.getMetricRegistryInfo().getMetricsJmxContext().contains("GStoreRegionCoprocessor")) {
        Optional<Metric> m = registry.get(name);
        if (m.isPresent()) {
          return m;
        }
      }
    }
    return Optional.empty();
  }
}
