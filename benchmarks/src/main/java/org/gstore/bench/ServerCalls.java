package org.gstore.bench;

import java.io.IOException;
import java.util.EnumSet;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;

/**
 * The calls G-Store's region servers made, summed over the cluster: data calls to HBase ({@code HbaseCalls}), syncs
 * of the shared WAL ({@code WalSyncs}), NameNode lookups ({@code NamenodeCalls}) and datagrams sent
 * ({@code DatagramsSent}). Divided by a window's operations they are {@code calls_per_op}: what a group's
 * lifecycle or a transaction costs in round trips, the quantity issue 55's design cuts.
 *
 * <p>An embedded cluster's region servers share this JVM's one coprocessor registry, so it is read here once (its
 * counters are already the cluster's sums); a real cluster's are read from each region server's {@code /jmx}. A
 * counter that went down (its registry dropped with the last G-Store region of a server and made again) makes
 * the window unknown, not wrong.
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
          : "n/a (a region server did not answer, or a counter started over)";
    }
  }

  /** The counters at one moment; null fields never: an unreadable sample is {@link #NONE}. */
  record Sample(long rpc, long walSyncs, long namenode, long datagrams, boolean complete) {
    static final Sample NONE = new Sample(0, 0, 0, 0, false);

    PerOp perOp(Sample later, long ops) {
      if (!complete || !later.complete || ops <= 0 || later.rpc < rpc || later.walSyncs < walSyncs
          || later.namenode < namenode || later.datagrams < datagrams) {
        return PerOp.UNKNOWN;
      }
      double n = ops;
      return new PerOp((later.rpc - rpc) / n, (later.walSyncs - walSyncs) / n, (later.namenode - namenode) / n,
          (later.datagrams - datagrams) / n);
    }
  }

  static final String BEAN =
      "Hadoop:service=HBase,name=RegionServer,sub=Coprocessor.Region.CP_org.gstore.coprocessor.GStoreRegionCoprocessor";
  private static final String REGISTRY = "GStoreRegionCoprocessor";
  private static final String[] COUNTERS = {"hbaseCalls", "walSyncs", "namenodeCalls", "datagramsSent"};

  private final Connection connection;
  private final boolean embedded;

  ServerCalls(Connection connection, boolean embedded) {
    this.connection = connection;
    this.embedded = embedded;
  }

  /** Never throws: a server that does not answer makes the sample incomplete. */
  Sample sample() {
    long[] sums = new long[COUNTERS.length];
    boolean complete = embedded ? readHere(sums) : readServers(sums);
    return new Sample(sums[0], sums[1], sums[2], sums[3], complete);
  }

  private static boolean readHere(long[] sums) {
    boolean found = false;
    for (MetricRegistry registry : MetricRegistries.global().getMetricRegistries()) {
      if (registry.getMetricRegistryInfo().getMetricsName().contains(REGISTRY)) {
        found = true;
        for (int i = 0; i < COUNTERS.length; i++) {
          sums[i] += registry.get(COUNTERS[i]).filter(Counter.class::isInstance).map(m -> ((Counter) m).getCount())
              .orElse(0L);
        }
      }
    }
    return found;
  }

  private boolean readServers(long[] sums) {
    try (Admin admin = connection.getAdmin()) {
      Map<ServerName, ServerMetrics> servers =
          admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS)).getLiveServerMetrics();
      for (Map.Entry<ServerName, ServerMetrics> e : servers.entrySet()) {
        for (int i = 0; i < COUNTERS.length; i++) {
          // metrics2 shows a counter capitalized, with a _count suffix where HBase adds one
          Pattern field = Pattern.compile("\"" + Character.toUpperCase(COUNTERS[i].charAt(0))
              + COUNTERS[i].substring(1) + "(?:_count)?\"\\s*:\\s*(\\d+)");
          sums[i] += ServersCpu.read(e.getKey(), e.getValue(), BEAN, field);
        }
      }
      return !servers.isEmpty();
    } catch (IOException e) {
      return false;
    }
  }
}
