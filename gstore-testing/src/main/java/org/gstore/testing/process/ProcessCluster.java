package org.gstore.testing.process;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * A G-Store cluster of separate JVMs on this machine (see the package doc). Its state is on disk under
 * {@link ClusterLayout#dir()}, so every method works from any JVM: {@code start} in one command, {@code kill} and
 * {@code stop} in later ones.
 *
 * <p>{@link #start} returns once HBase serves with every region server registered and G-Store's state tables exist;
 * {@link #stop} shuts HBase down cleanly, then HDFS and ZooKeeper, and leaves no process behind.
 */
public final class ProcessCluster {
  /** How often {@link #restart} starts a master that exits before it becomes active. */
  private static final int MASTER_STARTS = 3;
  private static final Duration START_TIMEOUT = Duration.ofMinutes(4);
  /** Replaced as region servers are added and removed ({@link #addRegionServer}, {@link #removeLastRegionServer}). */
  private volatile ClusterLayout layout;
  private final PrintStream log;

  private ProcessCluster(ClusterLayout layout, PrintStream log) {
    this.layout = layout;
    this.log = log;
  }

  /** A new cluster (or the one already in {@code layout.dir()}, started again with this layout). */
  public static ProcessCluster create(ClusterLayout layout, PrintStream log) {
    return new ProcessCluster(layout, log);
  }

  /** The cluster that was started in {@code dir}. */
  public static ProcessCluster open(Path dir, PrintStream log) throws IOException {
    return new ProcessCluster(ClusterLayout.load(dir), log);
  }

  public ClusterLayout layout() {
    return layout;
  }

  /** The {@code hbase-site.xml} that clients use. */
  public Path clientSite() {
    return layout.clientSite();
  }

  /** A configuration that reaches this cluster. */
  public Configuration clientConfiguration() {
    Configuration conf = HBaseConfiguration.create();
    conf.addResource(new org.apache.hadoop.fs.Path(clientSite().toUri()));
    if (layout.secure()) {
      // this JVM talks to a Kerberized cluster: where the KDC is, and that Hadoop's security is on
      System.setProperty("java.security.krb5.conf", SiteFiles.krb5Conf(layout).toString());
      org.apache.hadoop.security.UserGroupInformation.setConfiguration(conf);
    }
    return conf;
  }

  /**
   * Starts every role that is not running, in order, each once the one before serves; returns when the whole
   * cluster serves. Refuses, starting nothing, if a port it needs is taken by another program.
   */
  public void start() throws IOException {
    List<String> notRunning = layout.roles().stream().filter(r -> !node(r).alive()).toList();
    if (notRunning.size() < layout.roles().size() && Files.exists(layout.dir().resolve("cluster.properties"))
        && !ClusterLayout.load(layout.dir()).equals(layout)) {
      throw new IOException("a cluster with other settings is running in " + layout.dir() + " ("
          + ClusterLayout.load(layout.dir()) + "); stop it first, or use another --dir");
    }
    if (notRunning.isEmpty()) {
      log.println("cluster in " + layout.dir() + " is already running");
      return;
    }
    FreePorts.check(layout, notRunning);
    layout.save();
    SiteFiles sites = new SiteFiles(layout);
    sites.writeSecretOnce();
    sites.writeAll();
    long started = System.nanoTime();
    for (String role : notRunning) {
      startRole(role);
    }
    awaitServing(layout.roles());
    log.printf("cluster serves after %.1f s: %d region servers; clients use %s%n",
        (System.nanoTime() - started) / 1e9, layout.regionServers(), clientSite());
  }

  /**
   * For a secure cluster: how a user reaches it (the JVM flag that names the KDC, the principal and keytab the client
   * {@code hbase-site.xml} logs in with); empty for another cluster.
   */
  public java.util.Optional<String> kerberosInstructions() {
    return layout.secure() ? java.util.Optional.of(SiteFiles.kerberosInstructions(layout)) : java.util.Optional.empty();
  }

  /** Starts one role (after a kill, say) and waits until it serves. */
  public void restart(String role) throws IOException {
    NodeProcess node = node(role);
    if (node.alive()) {
      log.println("stopping " + role);
      node.stop(Duration.ofSeconds(30));
    }
    // a process that is exiting (its command line already gone, so no longer ours to see) may still hold them
    FreePorts.await(layout, role, Duration.ofSeconds(60));
    FreePorts.check(layout, List.of(role));
    for (int start = 1; ; start++) {
      startRole(role);
      if (!ClusterLayout.isRegionServer(role) && !role.equals("master")) {
        return;
      }
      try {
        // only this role's death fails the wait: another may be down on purpose meanwhile (a chaos run's second
        // fault), and the wait then lasts until it is back
        awaitServing(List.of(role));
        return;
      } catch (RoleDiedException e) {
        if (!role.equals("master") || start == MASTER_STARTS) {
          throw e;
        }
        // HBase's master gives up becoming active when it cannot read hbase:meta within its client's retries
        // (meta still on a server that just died): HBase's own start path, which a supervisor answers by starting
        // it again (hbase-daemon.sh autostart, systemd's Restart=on-failure). A region server's death stays a failure.
        log.println("master exited before it became active (its log says why); starting it again, as a supervisor"
            + " would (start " + (start + 1) + " of " + MASTER_STARTS + ")");
        FreePorts.await(layout, role, Duration.ofSeconds(60));
      }
    }
  }

  /** Stops one role as {@code SIGTERM} does (a region server closes its regions), {@code SIGKILL} after 90 s. */
  public void stopRole(String role) throws IOException {
    log.println("stopping " + role);
    node(role).stop(Duration.ofSeconds(90));
  }

  /** Adds a region server to the running cluster, starts it and waits until it serves; returns its role. */
  public synchronized String addRegionServer() throws IOException {
    ClusterLayout grown = layout.withRegionServers(layout.regionServers() + 1);
    String role = ClusterLayout.regionServer(grown.regionServers());
    ClusterLayout before = layout;
    layout = grown;
    try {
      FreePorts.check(layout, List.of(role));
      layout.save();
      new SiteFiles(layout).writeAll();
      startRole(role);
      awaitServing(List.of(role));
      return role;
    } catch (IOException | RuntimeException e) {
      try {
        node(role).stop(Duration.ofSeconds(30));
      } catch (IOException stopping) {
        e.addSuppressed(stopping);
      }
      layout = before;
      layout.save();
      throw e;
    }
  }

  /**
   * Stops the last region server and drops it from the cluster (move its regions away first: see
   * {@link ServerOperations#decommission}); returns its role.
   */
  public synchronized String removeLastRegionServer() throws IOException {
    if (layout.regionServers() == 1) {
      throw new IOException("the cluster's only region server cannot be removed");
    }
    String role = ClusterLayout.regionServer(layout.regionServers());
    stopRole(role);
    layout = layout.withRegionServers(layout.regionServers() - 1);
    layout.save();
    return role;
  }

  /** A role that exited while the cluster was awaited. */
  static final class RoleDiedException extends IOException {
    private static final long serialVersionUID = 1L;

    RoleDiedException(String message) {
      super(message);
    }
  }

  /** Sends {@code signal} to a role (9 for a crash); false if it was not running. */
  public boolean kill(String role, int signal) throws IOException {
    boolean sent = node(role).signal(signal);
    if (sent && signal == 9) {
      node(role).awaitExit(Duration.ofSeconds(10));
    }
    return sent;
  }

  /**
   * Stops the cluster: HBase first (the master tells the region servers to stop, so no region is reassigned on
   * the way down), then the DataNode, the NameNode and ZooKeeper. A process that ignores {@code SIGTERM} for 60 s
   * gets {@code SIGKILL}. Returns when no process of the cluster is left.
   */
  public void stop() throws IOException {
    List<String> hbase = new ArrayList<>();
    for (String role : layout.roles()) {
      if ((role.equals("master") || ClusterLayout.isRegionServer(role)) && node(role).alive()) {
        hbase.add(role);
      }
    }
    if (!hbase.isEmpty() && node("master").alive() && node("zookeeper").alive()) {
      shutdownHBase();
    }
    for (String role : hbase) {
      node(role).stop(Duration.ofSeconds(60));
    }
    for (String role : List.of("datanode", "namenode", "zookeeper")) {
      node(role).stop(Duration.ofSeconds(30));
    }
    if (layout.secure()) {
      node(ClusterLayout.KDC).stop(Duration.ofSeconds(30));
    }
    List<String> left = layout.roles().stream().filter(r -> node(r).alive()).toList();
    if (!left.isEmpty()) {
      throw new IOException("still running after stop: " + left);
    }
    log.println("cluster in " + layout.dir() + " stopped");
  }

  /** One line per role: pid, alive, ports, resident memory. */
  public List<RoleStatus> status() {
    List<RoleStatus> rows = new ArrayList<>();
    for (String role : layout.roles()) {
      NodeProcess node = node(role);
      Map<String, Integer> ports = layout.ports(role);
      rows.add(new RoleStatus(role, node.pid().orElse(-1L), node.alive(), ports, node.rssKib(), node.log()));
    }
    return rows;
  }

  /** A role as {@link #status} shows it; {@code pid} is -1 and {@code rssKib} -1 when it is not running. */
  public record RoleStatus(String role, long pid, boolean alive, Map<String, Integer> ports, long rssKib,
      Path log) {}

  /** The PID of a role's live JVM, or -1. */
  public long pid(String role) {
    return node(role).pid().orElse(-1L);
  }

  private NodeProcess node(String role) {
    if (!layout.roles().contains(role)) {
      throw new IllegalArgumentException("no role '" + role + "' in this cluster (roles: " + layout.roles() + ")");
    }
    return new NodeProcess(layout, role);
  }

  private void startRole(String role) throws IOException {
    NodeProcess node = node(role);
    RoleLaunch launch = RoleLaunch.of(layout, role);
    log.println("starting " + role + " (log " + node.log() + ")");
    if (role.equals("namenode")) {
      RoleLaunch.formatOnce(layout, launch.flags(), log);
    }
    if (role.equals(ClusterLayout.KDC)) {
      // a KDC makes new keys each start: wait for its keytab, not the one of the last start
      Files.deleteIfExists(SiteFiles.keytab(layout));
      Files.deleteIfExists(SiteFiles.krb5Conf(layout));
    }
    Process process = node.start(launch.flags(), launch.className(), launch.args());
    switch (role) {
      case ClusterLayout.KDC -> await(node, process, "the KDC", () -> Files.exists(SiteFiles.keytab(layout))
          && Files.exists(SiteFiles.krb5Conf(layout)) && ClusterProbe.accepts(layout.ports(role).get("kerberos")));
      case "zookeeper" -> await(node, process, "ZooKeeper", () -> ClusterProbe.accepts(layout.zookeeperPort()));
      // HDFS under Kerberos takes no anonymous probe: a DataNode that listens will do, HBase waits out safe mode
      case "datanode" -> await(node, process, layout.secure() ? "a DataNode" : "HDFS with a live DataNode, out of"
          + " safe mode", () -> layout.secure() ? ClusterProbe.accepts(layout.ports(role).get("data"))
          : ClusterProbe.hdfsServes(layout.nameNodePort()));
      case "namenode" -> await(node, process, "the NameNode", () -> ClusterProbe.accepts(layout.nameNodePort()));
      default -> await(node, process, role + "'s RPC port",
          () -> ClusterProbe.accepts(layout.ports(role).get("rpc")));
    }
  }

  /**
   * The command that runs {@code role} in the foreground, for a container's entry point: writes the role's
   * configuration (and formats HDFS first, for the NameNode), but starts nothing.
   */
  public List<String> foregroundCommand(String role) throws IOException {
    RoleLaunch launch = RoleLaunch.of(layout, role);
    layout.save();
    SiteFiles sites = new SiteFiles(layout);
    if (!layout.settings().containsKey("gstore.cluster.secret.file")) {
      sites.writeSecretOnce();
    }
    sites.writeAll();
    if (role.equals("namenode")) {
      RoleLaunch.formatOnce(layout, launch.flags(), log);
    }
    return node(role).command(launch.flags(), launch.className(), launch.args());
  }

  /**
   * Waits until the master is active, every region server is live and G-Store's state tables exist; fails at once if
   * one of {@code started} dies meanwhile.
   */
  private void awaitServing(List<String> started) throws IOException {
    ClusterProbe.awaitServing(clientConfiguration(), layout.regionServers(), START_TIMEOUT, () -> {
      for (String role : started) {
        if (!node(role).alive()) {
          throw new RoleDiedException(role + " died; the end of its log:\n" + node(role).logTail(40));
        }
      }
    });
  }

  private void shutdownHBase() {
    Configuration conf = clientConfiguration();
    conf.setInt("hbase.client.retries.number", 3);
    try (Connection connection = ConnectionFactory.createConnection(conf); Admin admin = connection.getAdmin()) {
      log.println("shutting HBase down");
      admin.shutdown();
    } catch (IOException e) {
      log.println("HBase did not take the shutdown request (" + e.getMessage() + "); stopping its processes");
    }
  }

  private void await(NodeProcess node, Process process, String what, Callable<Boolean> ready) throws IOException {
    ClusterProbe.await(what + " (see " + node.log() + ")", START_TIMEOUT, () -> {
      if (!process.isAlive()) {
        throw new IOException(node.role() + " died while starting; the end of its log:\n" + node.logTail(40));
      }
      return ready.call();
    });
  }
}
