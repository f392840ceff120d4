package org.gstore.chaos;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.gstore.testing.process.ClusterLayout;
import org.gstore.testing.process.ProcessCluster;

/**
 * The fault schedule: every {@code every}, {@code kill -9} one process, leave it down for {@code down}, start it
 * again and wait until the cluster serves. Targets rotate: the region server hosting a group's leader, a random
 * region server, and (if allowed) the active master; so a short run already kills a leader's server. A stop request
 * is honoured once {@code minKills} kills happened, so a slow restart on a loaded machine cannot make a run end
 * with fewer faults than asked for; {@link #abort()} ends it regardless.
 */
final class Killer implements Runnable {
  private final ProcessCluster cluster;
  private final Connection connection;
  private final Bank bank;
  private final Duration every;
  private final Duration down;
  private final boolean killMaster;
  private final int minKills;
  private final Random random;
  private final PrintStream out;
  private volatile boolean stopRequested;
  private volatile boolean aborted;
  private volatile int kills;
  private volatile Throwable failure;

  Killer(ProcessCluster cluster, Connection connection, Bank bank, Duration every, Duration down,
      boolean killMaster, int minKills, long seed, PrintStream out) {
    this.cluster = cluster;
    this.connection = connection;
    this.bank = bank;
    this.every = every;
    this.down = down;
    this.killMaster = killMaster;
    this.minKills = minKills;
    this.random = new Random(seed);
    this.out = out;
  }

  int kills() {
    return kills;
  }

  /** Why the schedule stopped early (a process that would not come back), or null. */
  Throwable failure() {
    return failure;
  }

  /** Asks the schedule to end after the current fault, once at least {@code minKills} kills happened. */
  void stop() {
    stopRequested = true;
  }

  /** Ends the schedule after the current fault, however many kills happened. */
  void abort() {
    aborted = true;
  }

  private boolean done() {
    return aborted || (stopRequested && kills >= minKills);
  }

  @Override
  public void run() {
    long next = System.nanoTime() + every.toNanos();
    try {
      while (!done()) {
        if (!sleepUntil(next)) {
          return;
        }
        String target = target(kills);
        long started = System.nanoTime();
        if (cluster.kill(target, 9)) {
          kills++;
          out.printf("chaos: kill -9 %s (kill %d)%n", target, kills);
        }
        if (!sleepUntil(System.nanoTime() + down.toNanos())) {
          cluster.restart(target); // never leave the cluster short of a process
          return;
        }
        cluster.restart(target);
        out.printf("chaos: %s back, cluster serving %.1f s after the kill%n", target,
            (System.nanoTime() - started) / 1e9);
        next = Math.max(next + every.toNanos(), System.nanoTime());
      }
    } catch (IOException | RuntimeException e) {
      failure = e;
      out.println("chaos: the fault schedule failed: " + e);
    }
  }

  /** Kill {@code n}: a leader's server, a random server, then the master (or another leader's server). */
  private String target(int n) throws IOException {
    int regionServers = cluster.layout().regionServers();
    return switch (n % 3) {
      case 0 -> leaderServer(random.nextInt(bank.groups()));
      case 1 -> ClusterLayout.regionServer(1 + random.nextInt(regionServers));
      default -> killMaster ? "master" : leaderServer(random.nextInt(bank.groups()));
    };
  }

  /** The region server (by role) that hosts the leader row of {@code group} now. */
  private String leaderServer(int group) throws IOException {
    try (RegionLocator locator = connection.getRegionLocator(bank.table())) {
      int port = locator.getRegionLocation(bank.row(group, 0), true).getServerName().getPort();
      for (String role : cluster.layout().roles()) {
        if (ClusterLayout.isRegionServer(role) && cluster.layout().ports(role).get("rpc") == port) {
          return role;
        }
      }
    }
    List<String> servers = cluster.layout().roles().stream().filter(ClusterLayout::isRegionServer).toList();
    return servers.get(random.nextInt(servers.size())); // the leader's region is in transit: any server
  }

  private boolean sleepUntil(long deadline) {
    while (!done()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return true;
      }
      try {
        Thread.sleep(Math.min(200, left / 1_000_000 + 1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }
}
