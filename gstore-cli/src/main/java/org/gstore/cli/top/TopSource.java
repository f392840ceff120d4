package org.gstore.cli.top;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.gstore.client.GStoreAdmin;
import org.gstore.client.GroupInfo;
import org.gstore.client.RecoveryStatus;
import org.gstore.common.metrics.PrometheusScrape;

/**
 * Samples a cluster for {@code gstore top}: each live region server's G-Store metrics from its info server's
 * {@code /prometheus}, the servers' recovery state and the live groups through G-Store's endpoints (which work on
 * Kerberized clusters as any client call does). Keeps the previous sample to turn counters into rates.
 */
public final class TopSource {
  private final Connection connection;
  private final GStoreAdmin admin;
  private final PrometheusScrape scrape = new PrometheusScrape();
  private final String scheme;
  private Instant previousAt;
  private Map<String, Map<String, Double>> previousMetrics = Map.of();
  private Map<String, Long> previousCommits = Map.of();

  public TopSource(Connection connection, GStoreAdmin admin) {
    this.connection = connection;
    this.admin = admin;
    this.scheme = connection.getConfiguration().getBoolean("hbase.ssl.enabled", false) ? "https" : "http";
  }

  /** One frame; never throws: what cannot be read is left out and named in {@link Frame#problems()}. */
  public Frame sample() {
    Instant now = Instant.now();
    List<String> problems = new ArrayList<>();
    Map<String, Map<String, Double>> metrics = scrapeLiveServers(problems);
    Map<String, RecoveryStatus.Server> recovery = new HashMap<>();
    try {
      admin.recoveryStatus().servers().forEach(s -> recovery.put(s.name(), s));
    } catch (IOException | RuntimeException e) {
      problems.add("recovery state: " + firstLine(e));
    }
    double seconds = previousAt == null ? Double.NaN : Duration.between(previousAt, now).toMillis() / 1e3;
    List<Frame.Server> servers = new ArrayList<>();
    Set<String> names = new java.util.TreeSet<>(metrics.keySet());
    names.addAll(recovery.keySet());
    for (String name : names) {
      servers.add(server(name, metrics.getOrDefault(name, Map.of()), previousMetrics.getOrDefault(name, Map.of()),
          recovery.get(name), seconds));
    }
    List<Frame.Group> groups = new ArrayList<>();
    Map<String, Long> commits = new HashMap<>();
    try {
      for (GroupInfo g : admin.listGroups()) {
        String key = g.id() + "@" + g.leaderServer(); // a new leader counts from zero again
        if (g.commits() >= 0) {
          commits.put(key, g.commits());
        }
        Long before = previousCommits.get(key);
        double rate = before == null || g.commits() < 0 ? Double.NaN : Math.max(0, g.commits() - before) / seconds;
        Duration leaseLeft = g.leaseExpiresAt() == null ? null : Duration.between(now, g.leaseExpiresAt());
        groups.add(new Frame.Group(g.id().toString(), g.leaderServer() == null ? "-" : g.leaderServer(), g.state(),
            g.members().size(), g.commits(), rate, g.aborts(), leaseLeft, g.unshippedCommits()));
      }
    } catch (IOException | RuntimeException e) {
      problems.add("groups: " + firstLine(e));
    }
    previousAt = now;
    previousMetrics = metrics;
    previousCommits = commits;
    return new Frame(now, servers, groups, problems);
  }

  private Map<String, Map<String, Double>> scrapeLiveServers(List<String> problems) {
    Map<String, Map<String, Double>> metrics = new HashMap<>();
    ClusterMetrics cluster;
    try (Admin hbase = connection.getAdmin()) {
      cluster = hbase.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
    } catch (IOException | RuntimeException e) {
      problems.add("live servers: " + firstLine(e));
      return metrics;
    }
    for (Map.Entry<ServerName, org.apache.hadoop.hbase.ServerMetrics> e : cluster.getLiveServerMetrics()
        .entrySet()) {
      ServerName server = e.getKey();
      int infoPort = e.getValue().getInfoServerPort();
      if (infoPort <= 0) {
        problems.add(server.getServerName() + ": no info server (hbase.regionserver.info.port), so no metrics");
        metrics.put(server.getServerName(), Map.of());
        continue;
      }
      try {
        metrics.put(server.getServerName(), scrape.scrape(scheme, server.getHostname(), infoPort));
      } catch (IOException | RuntimeException ex) {
        problems.add(server.getServerName() + " metrics: " + firstLine(ex));
        metrics.put(server.getServerName(), Map.of());
      }
    }
    return metrics;
  }

  private static Frame.Server server(String name, Map<String, Double> now, Map<String, Double> before,
      RecoveryStatus.Server recovery, double seconds) {
    return new Frame.Server(name, recovery == null ? "alive" : recovery.state(),
        now.getOrDefault("groups_led", Double.NaN),
        rate(now, before, "txn_commits", seconds),
        now.getOrDefault("txn_commit_latency_micros_median", Double.NaN) / 1e3,
        now.getOrDefault("txn_commit_latency_micros_99th_percentile", Double.NaN) / 1e3,
        rate(now, before, "wal_syncs", seconds),
        now.getOrDefault("shipper_lag_records", Double.NaN),
        now.getOrDefault("shipper_lag_millis", Double.NaN),
        now.getOrDefault("shipper_unpersisted", Double.NaN),
        recovery == null ? -1 : recovery.shippedThrough(), recovery == null ? -1 : recovery.persistedThrough(),
        recovery == null ? -1 : recovery.walBytes(),
        recovery == null ? List.of() : List.copyOf(new java.util.TreeSet<>(recovery.alerts())));
  }

  /** A counter's increase per second; NaN without two readings (a restarted server's counter starts over). */
  private static double rate(Map<String, Double> now, Map<String, Double> before, String counter, double seconds) {
    Double a = before.get(counter);
    Double b = now.get(counter);
    if (a == null || b == null || !(seconds > 0) || b < a) {
      return Double.NaN;
    }
    return (b - a) / seconds;
  }

  /** What went wrong, in one line: HBase's retry exceptions list every attempt over many. */
  private static String firstLine(Exception e) {
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    int end = message.indexOf('\n');
    return end < 0 ? message : message.substring(0, end) + " ...";
  }
}
