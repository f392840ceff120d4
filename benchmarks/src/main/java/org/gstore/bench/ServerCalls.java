package org.gstore.bench;

import java.io.IOException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.gstore.common.metrics.PrometheusScrape;

/**
 * The calls G-Store's region servers made, summed over the cluster: data calls to HBase ({@code HbaseCalls}), syncs
 * of the shared WAL ({@code WalSyncs}), NameNode lookups ({@code NamenodeCalls}) and datagrams sent
 * ({@code DatagramsSent}). Divided by a window's operations they are {@code calls_per_op}: what a group's
 * lifecycle or a transaction costs in round trips. Region-location lookups, the master's answers and a scanner's
 * batches after its first are not counted: the figures are a floor.
 *
 * <p>An embedded cluster's region servers share this JVM's one coprocessor registry, so it is read here once (its
 * counters are already the cluster's sums); a real cluster's are scraped from each region server's
 * {@code /prometheus}, which HBase snapshots at each request ({@code /jmx} serves a copy up to 10 s old). A window
 * is unknown, never wrong, when a server did not answer, the servers changed, or a counter went down (a registry
 * dropped with a server's last G-Store region and made again).
 */
final class ServerCalls {
  /** What one window cost per operation; NaN where unknown. */
  record PerOp(double rpc, double walSyncs, double namenode, double datagrams) {
    static final PerOp UNKNOWN = new PerOp(Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    boolean known() {
      return !Double.isNaN(rpc);
    }

    /** {@code "12.0 HBase calls, 3.0 WAL syncs, 6.0 NameNode calls, 10.0 datagrams"}. */
    String line() {
      return known() ? String.format(java.util.Locale.ROOT,
          "%.1f HBase calls, %.1f WAL syncs, %.1f NameNode calls, %.1f datagrams", rpc, walSyncs, namenode, datagrams)
          : "n/a (a region server did not answer, the servers changed, or a counter started over)";
    }
  }

  /** The counters of each server (or of this JVM: one entry), in the order of {@link #COUNTERS}; null: unread. */
  record Sample(Map<String, long[]> servers) {
    static final Sample NONE = new Sample(null);

    PerOp perOp(Sample later, long ops) {
      if (servers == null || later.servers == null || ops <= 0 || !servers.keySet().equals(later.servers.keySet())) {
        return PerOp.UNKNOWN;
      }
      long[] grown = new long[COUNTERS.length];
      for (Map.Entry<String, long[]> e : servers.entrySet()) {
        long[] after = later.servers.get(e.getKey());
        for (int i = 0; i < grown.length; i++) {
          if (after[i] < e.getValue()[i]) {
            return PerOp.UNKNOWN;
          }
          grown[i] += after[i] - e.getValue()[i];
        }
      }
      double n = ops;
      return new PerOp(grown[0] / n, grown[1] / n, grown[2] / n, grown[3] / n);
    }
  }

  /** The counters, as docs/operations.md names them. */
  private static final String[] COUNTERS = {"HbaseCalls", "WalSyncs", "NamenodeCalls", "DatagramsSent"};
  private static final String REGISTRY = "GStoreRegionCoprocessor";

  private final Connection connection;
  private final boolean embedded;
  private final PrometheusScrape scrape = new PrometheusScrape();

  ServerCalls(Connection connection, boolean embedded) {
    this.connection = connection;
    this.embedded = embedded;
  }

  /** Never throws: a server or counter that cannot be read makes the sample {@link Sample#NONE}. */
  Sample sample() {
    try {
      return new Sample(embedded ? readHere() : readServers());
    } catch (IOException e) {
      return Sample.NONE;
    }
  }

  private static Map<String, long[]> readHere() throws IOException {
    Map<String, long[]> here = new HashMap<>();
    for (MetricRegistry registry : MetricRegistries.global().getMetricRegistries()) {
      if (registry.getMetricRegistryInfo().getMetricsName().contains(REGISTRY)) {
        long[] values = new long[COUNTERS.length];
        for (int i = 0; i < COUNTERS.length; i++) {
          String name = Character.toLowerCase(COUNTERS[i].charAt(0)) + COUNTERS[i].substring(1);
          values[i] = registry.get(name).filter(Counter.class::isInstance).map(m -> ((Counter) m).getCount())
              .orElseThrow(() -> new IOException("no counter " + name));
        }
        here.put(registry.getMetricRegistryInfo().getMetricsName(), values);
      }
    }
    if (here.isEmpty()) {
      throw new IOException("no G-Store registry in this JVM");
    }
    return here;
  }

  private Map<String, long[]> readServers() throws IOException {
    Map<String, long[]> read = new HashMap<>();
    try (Admin admin = connection.getAdmin()) {
      String scheme = connection.getConfiguration().getBoolean("hbase.ssl.enabled", false) ? "https" : "http";
      for (Map.Entry<ServerName, ServerMetrics> e : admin.getClusterMetrics(
          EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS)).getLiveServerMetrics().entrySet()) {
        Map<String, Double> samples = scrape.scrape(scheme, e.getKey().getHostname(), e.getValue().getInfoServerPort());
        long[] values = new long[COUNTERS.length];
        for (int i = 0; i < COUNTERS.length; i++) {
          Double value = samples.get(PrometheusScrape.snake(COUNTERS[i]));
          if (value == null) {
            throw new IOException(e.getKey() + " publishes no " + COUNTERS[i]);
          }
          values[i] = value.longValue();
        }
        read.put(e.getKey().toString(), values); // with its start code: a restarted server is another
      }
    }
    if (read.isEmpty()) {
      throw new IOException("no live region server");
    }
    return read;
  }
}
