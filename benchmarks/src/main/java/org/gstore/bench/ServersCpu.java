package org.gstore.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;

/**
 * A real cluster's CPU: the region servers' processes (where G-Store runs, and where HBase serves every system's
 * reads and writes), read from each server's info server ({@code /jmx}, the JVM's {@code OperatingSystem} and
 * {@code Compilation} beans). Datanodes, ZooKeeper and the master are not counted. A server that does not answer
 * is left out of that sample, and {@link #describe} says when that happened.
 */
final class ServersCpu implements ClusterCpu {
  private static final Pattern CPU = Pattern.compile("\"ProcessCpuTime\"\\s*:\\s*(\\d+)");
  private static final Pattern COMPILE = Pattern.compile("\"TotalCompilationTime\"\\s*:\\s*(\\d+)");

  private final Connection connection;
  private volatile String unreadable;

  ServersCpu(Connection connection) {
    this.connection = connection;
  }

  @Override
  public Sample sample(Collection<Thread> clients) throws IOException {
    ClusterMetrics metrics;
    try (Admin admin = connection.getAdmin()) {
      metrics = admin.getClusterMetrics(java.util.EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
    }
    long cpu = 0;
    long compile = 0;
    for (var e : metrics.getLiveServerMetrics().entrySet()) {
      try {
        cpu += read(e.getKey(), e.getValue(), "java.lang:type=OperatingSystem", CPU);
        compile += read(e.getKey(), e.getValue(), "java.lang:type=Compilation", COMPILE);
      } catch (IOException ex) {
        unreadable = e.getKey() + ": " + ex.getMessage();
      }
    }
    return new Sample(cpu, compile);
  }

  @Override
  public String describe() {
    String missing = unreadable;
    return "the region servers' processes (their info servers' /jmx)"
        + (missing == null ? "" : "; some sample missed one, the last was " + missing);
  }

  private static long read(ServerName server, ServerMetrics metrics, String bean, Pattern field) throws IOException {
    if (metrics.getInfoServerPort() <= 0) {
      throw new IOException("no info server (hbase.regionserver.info.port)");
    }
    URL url = new URL("http://" + server.getHostname() + ":" + metrics.getInfoServerPort() + "/jmx?qry=" + bean);
    HttpURLConnection http = (HttpURLConnection) url.openConnection();
    http.setConnectTimeout(5_000);
    http.setReadTimeout(5_000);
    try (InputStream in = http.getInputStream()) {
      Matcher m = field.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      if (!m.find()) {
        throw new IOException(bean + " has no " + field.pattern());
      }
      return Long.parseLong(m.group(1));
    } finally {
      http.disconnect();
    }
  }
}
