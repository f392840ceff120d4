package org.gstore.cli;

import java.util.Optional;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.Histogram;
import org.apache.hadoop.hbase.metrics.Metric;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;

/**
 * G-Store's region-server metrics, read in-process: only meaningful when the cluster is embedded in this JVM,
 * where its region servers share one registry (counters and histograms add up over them; a gauge shows one).
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
