package org.gstore.testing.process;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.util.RegionMover;

/**
 * The region-server operations an operator runs every week on a live cluster, groups living, done as HBase's own
 * tools do them: a rolling restart (each server's regions moved away with HBase's {@link RegionMover}, the server
 * stopped and started, its regions moved back, as {@code graceful_stop.sh --restart --reload} does), a
 * decommission ({@link Admin#decommissionRegionServers}: the master moves its regions away and places none there,
 * then it stops) and its return, and a server added (the balancer moves regions onto it) or removed.
 *
 * <p>Regions move while their servers live, so G-Store hands each group over by its region's close (its commits
 * shipped first): no WAL is replayed and no group waits for a dead server's detection.
 */
public final class ServerOperations {
  /** How long the regions of one server may take to move. */
  private static final Duration MOVE_TIMEOUT = Duration.ofMinutes(5);
  private static final int UNLOAD_ATTEMPTS = 3;

  private final ProcessCluster cluster;
  private final PrintStream log;

  public ServerOperations(ProcessCluster cluster, PrintStream log) {
    this.cluster = cluster;
    this.log = log;
  }

  /** Restarts every region server in turn, each with its regions moved away first and back after. */
  public void rollingRestart() throws IOException {
    for (String role : cluster.layout().roles()) {
      if (ClusterLayout.isRegionServer(role)) {
        restartWithRegionsMoved(role);
      }
    }
  }

  /**
   * One step of a rolling restart: {@code role}'s regions moved to the other servers, the server stopped and
   * started, its regions moved back. The balancer is off meanwhile (it would move them again) and then as before.
   */
  public void restartWithRegionsMoved(String role) throws IOException {
    long started = System.nanoTime();
    try (Connection connection = ConnectionFactory.createConnection(cluster.clientConfiguration());
        Admin admin = connection.getAdmin()) {
      boolean balancerWas = admin.isBalancerEnabled();
      String address = address(admin, role);
      String regionsFile = cluster.layout().dir().resolve("regions-of-" + role).toString();
      try {
        log.println("moving the regions of " + role + " (" + address + ") to the other region servers");
        unload(admin, role, address, regionsFile);
        cluster.restart(role);
        log.println("moving the regions of " + role + " back");
        try (RegionMover mover = mover(address, regionsFile)) {
          if (!mover.load()) {
            log.println("some regions of " + role + " did not move back (they serve elsewhere)");
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted moving the regions of " + role);
      } catch (ExecutionException | TimeoutException e) {
        throw new IOException("moving the regions of " + role + " failed: " + e, e);
      } finally {
        admin.balancerSwitch(balancerWas, true);
      }
    }
    log.printf("restarted %s with its regions moved in %.1f s%n", role, (System.nanoTime() - started) / 1e9);
  }

  /**
   * Decommissions {@code role}: the master moves its regions away and assigns none to it, then it stops (it stays
   * in the cluster's layout, stopped, until {@link #recommission}).
   */
  public void decommission(String role) throws IOException {
    long started = System.nanoTime();
    try (Connection connection = ConnectionFactory.createConnection(cluster.clientConfiguration());
        Admin admin = connection.getAdmin()) {
      ServerName server = serverName(admin, role);
      log.println("decommissioning " + role + " (" + server + "): its regions move away");
      admin.decommissionRegionServers(List.of(server), true);
      long deadline = System.nanoTime() + MOVE_TIMEOUT.toNanos();
      int left;
      while ((left = admin.getRegions(server).size()) > 0) {
        if (System.nanoTime() > deadline) {
          throw new IOException(role + " still hosts " + left + " regions " + MOVE_TIMEOUT.toSeconds()
              + " s after its decommission");
        }
        pause(Duration.ofMillis(500));
      }
    }
    cluster.stopRole(role);
    log.printf("decommissioned and stopped %s in %.1f s%n", role, (System.nanoTime() - started) / 1e9);
  }

  /** Starts a decommissioned {@code role} again and lets the master assign regions to it (a balancer run). */
  public void recommission(String role) throws IOException {
    cluster.restart(role);
    try (Connection connection = ConnectionFactory.createConnection(cluster.clientConfiguration());
        Admin admin = connection.getAdmin()) {
      int port = cluster.layout().ports(role).get("rpc");
      for (ServerName s : admin.listDecommissionedRegionServers()) {
        if (s.getPort() == port) {
          admin.recommissionRegionServer(s, List.of());
        }
      }
      admin.balancerSwitch(true, true);
      admin.balance();
    }
    log.println("recommissioned " + role);
  }

  /** Adds a region server and lets the balancer move regions onto it; returns its role. */
  public String addRegionServer() throws IOException {
    String role = cluster.addRegionServer();
    try (Connection connection = ConnectionFactory.createConnection(cluster.clientConfiguration());
        Admin admin = connection.getAdmin()) {
      admin.balancerSwitch(true, true);
      admin.balance();
    }
    log.println("added " + role + "; the balancer moves regions onto it");
    return role;
  }

  /** Decommissions the last region server and drops it from the cluster; returns its role. */
  public String removeLastRegionServer() throws IOException {
    String role = ClusterLayout.regionServer(cluster.layout().regionServers());
    decommission(role);
    cluster.removeLastRegionServer();
    try (Connection connection = ConnectionFactory.createConnection(cluster.clientConfiguration());
        Admin admin = connection.getAdmin()) {
      // the stopped server's decommission mark would outlive it in ZooKeeper
      for (ServerName s : admin.listDecommissionedRegionServers()) {
        if (!admin.getRegionServers().contains(s)) {
          admin.recommissionRegionServer(s, List.of());
        }
      }
    }
    return role;
  }

  /**
   * Moves every region off {@code role}, trying again, as an operator re-runs {@code graceful_stop.sh}, when HBase
   * could not: a move to a server that was itself failing stays stuck until HBase has recovered that server (seen
   * when a rolling restart's step began just after another server's long pause), so each try waits first for no
   * region to be in transition.
   */
  private void unload(Admin admin, String role, String address, String regionsFile)
      throws IOException, InterruptedException, ExecutionException, TimeoutException {
    for (int attempt = 1; ; attempt++) {
      awaitNoRegionsInTransition(admin);
      try (RegionMover mover = mover(address, regionsFile)) {
        if (mover.unload()) {
          return;
        }
      }
      if (attempt == UNLOAD_ATTEMPTS) {
        throw new IOException("HBase's RegionMover could not move every region off " + role + " in "
            + UNLOAD_ATTEMPTS + " tries");
      }
      log.println("HBase's RegionMover could not move every region off " + role + "; trying again");
    }
  }

  private static void awaitNoRegionsInTransition(Admin admin) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + MOVE_TIMEOUT.toNanos();
    while (!admin.getClusterMetrics(java.util.EnumSet.of(
        org.apache.hadoop.hbase.ClusterMetrics.Option.REGIONS_IN_TRANSITION)).getRegionStatesInTransition().isEmpty()
        && System.nanoTime() < deadline) {
      Thread.sleep(500); // NOPMD: polling HBase's master, as its own tools do
    }
  }

  private RegionMover mover(String address, String regionsFile) throws IOException {
    Configuration conf = cluster.clientConfiguration();
    return new RegionMover.RegionMoverBuilder(address, conf).filename(regionsFile).ack(true).maxthreads(2)
        .timeout((int) MOVE_TIMEOUT.toSeconds()).build();
  }

  /** {@code host:port} of a live region server, as HBase names it. */
  private String address(Admin admin, String role) throws IOException {
    ServerName s = serverName(admin, role);
    return s.getHostname() + ":" + s.getPort();
  }

  private ServerName serverName(Admin admin, String role) throws IOException {
    int port = cluster.layout().ports(role).get("rpc");
    return admin.getRegionServers().stream().filter(s -> s.getPort() == port).findFirst()
        .orElseThrow(() -> new IOException(role + " (port " + port + ") is not a live region server"));
  }

  private static void pause(Duration d) throws InterruptedIOException {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted");
    }
  }
}
