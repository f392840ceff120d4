package org.gstore.chaos;

import com.google.protobuf.ServiceException;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.gstore.common.wire.generated.GStoreProtos.GStoreService;
import org.gstore.common.wire.generated.GStoreProtos.TestFaultRequest;
import org.gstore.coprocessor.transport.HBaseKeyLocator;
import org.gstore.testing.process.ClusterLayout;
import org.gstore.testing.process.ProcessCluster;
import org.gstore.testing.process.ServerOperations;

/**
 * Injects one fault of a chaos run at a time (or two at once, from two threads: {@code taken} keeps them off each
 * other's servers) into the process cluster, and returns only once what it stopped is back and the cluster serves.
 * Region-server faults hit the server hosting a group's leader every other time, else a random one; moves, splits
 * and leaders' servers are aimed at each workload's groups in turn ({@link FaultTargets}). Counts each fault that
 * happened, draws it on the {@link Timeline}, and gives its {@link Stalls} the servers it hit and where each
 * client's rows were when it began.
 */
final class FaultInjector {
  private static final int SIGKILL = 9;
  private static final int SIGTERM = 15;
  /** How long a region server may take to close its regions and stop before it is killed. */
  private static final Duration GRACEFUL_STOP = Duration.ofSeconds(90);
  private static final int SIGCONT = 18;
  private static final int SIGSTOP = 19;
  /** The faults aimed at one region server ({@link #regionServer}). */
  private static final Set<Fault> AIMED_AT_ONE_SERVER = EnumSet.of(Fault.KILL, Fault.PAUSE, Fault.RESTART,
      Fault.ROLLING_RESTART, Fault.DECOMMISSION);

  private final ProcessCluster cluster;
  private final Connection connection;
  private final Bank bank;
  private final List<FaultTargets> targets;
  private final Duration down;
  /** How long a paused server stays stopped: past its ZooKeeper session, so HBase declares it dead meanwhile. */
  private final Duration pause;
  private final Random random;
  private final PrintStream out;
  private final Timeline timeline;
  /** Where each G-Store client's rows are, asked as each fault begins: who the fault is unrelated to. */
  private final Supplier<Map<String, Set<Integer>>> placement;
  /** Faults injected so far, by kind: the schedule's, counted here as each happens. */
  private final Map<Fault, AtomicInteger> counts;
  /** Plain HBase's clients, given a region on the server of each fault aimed at one ({@link PlainLoad#regionOn}). */
  private final PlainLoad plain;
  /** The operators' operations: rolling restarts, decommissions, servers added and removed. */
  private final ServerOperations operations;

  /**
   * @param bank the bank, through whose regions test faults reach a server
   * @param targets what moves, splits and leaders' servers are aimed at: the bank and the other workloads
   * @param random shared with the schedule (thread-safe), so a seed replays the whole run
   * @param placement the region servers (rpc ports) each G-Store client's rows are on now, by client thread
   * @param counts where each fault that happened is counted, one counter per kind
   * @param plain plain HBase's load, given a region on each server a fault is aimed at before it begins
   */
  FaultInjector(ProcessCluster cluster, Connection connection, Bank bank, List<FaultTargets> targets, Duration down,
      Duration pause, Random random, PrintStream out, Timeline timeline,
      Supplier<Map<String, Set<Integer>>> placement, Map<Fault, AtomicInteger> counts, PlainLoad plain) {
    this.cluster = cluster;
    this.connection = connection;
    this.bank = bank;
    this.targets = List.copyOf(targets);
    this.down = down;
    this.pause = pause;
    this.random = random;
    this.out = out;
    this.timeline = timeline;
    this.placement = placement;
    this.counts = counts;
    this.plain = plain;
    this.operations = new ServerOperations(cluster, out);
  }

  /** Injects one fault, and returns once what it stopped is back and the cluster serves. */
  void inject(Fault fault, Set<String> taken) throws IOException {
    // the server a fault aimed at one is aimed at, picked (and given a plain region) before the fault begins
    String rs = AIMED_AT_ONE_SERVER.contains(fault) ? regionServer(taken) : null;
    if (rs != null) {
      givePlainRegion(rs);
    }
    long started = System.nanoTime();
    Map<String, Set<Integer>> placedBefore = placement.get();
    int countBefore = counts.get(fault).get();
    Set<Integer> hit = new HashSet<>(); // the region servers it hit, by rpc port
    // what a balancer run, a split or a new server's balancing moves is not known
    boolean hitKnown = fault != Fault.BALANCE && fault != Fault.SPLIT && fault != Fault.ADD_RS;
    String what = "";
    try {
      what = switch (fault) {
        case KILL -> {
          hit.add(rpcPort(rs));
          try {
            counted(fault, cluster.kill(rs, SIGKILL));
            sleep(down);
          } finally {
            cluster.restart(rs);
          }
          yield "kill -9 " + rs;
        }
        case PAUSE -> {
          hit.add(rpcPort(rs));
          try {
            counted(fault, cluster.kill(rs, SIGSTOP));
            sleep(pause);
          } finally {
            cluster.kill(rs, SIGCONT);
            sleep(Duration.ofSeconds(5)); // it finds itself dead and aborts; restart stops it if it did not
            cluster.restart(rs);
          }
          yield "SIGSTOP " + rs + " for " + pause.toSeconds() + " s";
        }
        case RESTART -> {
          hit.add(rpcPort(rs));
          try {
            counted(fault, cluster.kill(rs, SIGTERM));
            awaitGone(rs, GRACEFUL_STOP);
          } finally {
            cluster.restart(rs); // kill -9 if it did not stop in time
          }
          yield "graceful stop and start of " + rs;
        }
        case ROLLING_RESTART -> {
          hit.add(rpcPort(rs));
          operations.restartWithRegionsMoved(rs);
          counts.get(fault).incrementAndGet();
          yield "rolling restart's step on " + rs + " (regions moved away and back)";
        }
        case DECOMMISSION -> {
          hit.add(rpcPort(rs));
          try {
            operations.decommission(rs);
            counts.get(fault).incrementAndGet();
            sleep(down);
          } finally {
            operations.recommission(rs);
          }
          yield "decommission of " + rs + ", then its return";
        }
        case ADD_RS -> {
          String added = operations.addRegionServer();
          taken.add(added);
          counts.get(fault).incrementAndGet();
          sleep(down);
          operations.removeLastRegionServer();
          yield "region server " + added + " added, then decommissioned and removed";
        }
        case MASTER -> {
          try {
            counted(fault, cluster.kill("master", SIGKILL));
            sleep(down);
          } finally {
            cluster.restart("master");
          }
          yield "kill -9 master";
        }
        case MOVE -> {
          HRegionLocation leader = leaderRegion(target());
          hit.add(leader.getServerName().getPort());
          try (Admin admin = connection.getAdmin()) {
            admin.move(leader.getRegion().getEncodedNameAsBytes());
          }
          counts.get(fault).incrementAndGet();
          yield "move of " + leader.getRegion().getRegionNameAsString() + " (a leader's region) from "
              + leader.getServerName();
        }
        case BALANCE -> {
          try (Admin admin = connection.getAdmin()) {
            admin.balancerSwitch(true, true);
            boolean ran = admin.balance();
            counts.get(fault).incrementAndGet();
            yield "balancer run (" + (ran ? "ran" : "nothing to move") + ")";
          }
        }
        case PARTITION -> {
          List<ServerName> two = bankServers(taken, 2);
          if (two.size() < 2) {
            yield "no partition (fewer than two free servers host a bank region)";
          }
          two.forEach(s -> hit.add(s.getPort()));
          boolean bothWays = random.nextBoolean();
          Duration length = Duration.ofSeconds(5 + random.nextInt(26));
          String refused = testFault(two.get(0), Set.of(two.get(1)), 0, length);
          if (refused != null) {
            yield "no partition: " + refused;
          }
          bothWays &= testFault(two.get(1), Set.of(two.get(0)), 0, length) == null;
          counts.get(fault).incrementAndGet();
          sleep(length);
          yield "partition " + two.get(0).getAddress() + (bothWays ? " <-> " : " -> ") + two.get(1).getAddress()
              + " for " + length.toSeconds() + " s";
        }
        case SKEW -> {
          List<ServerName> one = bankServers(taken, 1);
          if (one.isEmpty()) {
            yield "no skew (no free server hosts a bank region)";
          }
          hit.add(one.get(0).getPort());
          long skew = (random.nextBoolean() ? 1 : -1) * (5_000L + random.nextInt(25_001));
          Duration length = Duration.ofSeconds(10 + random.nextInt(21));
          String refused = testFault(one.get(0), Set.of(), skew, length);
          if (refused != null) {
            yield "no skew: " + refused;
          }
          counts.get(fault).incrementAndGet();
          sleep(length);
          yield "G-Store clock of " + one.get(0).getAddress() + " moved by " + skew + " ms for " + length.toSeconds()
              + " s";
        }
        case SPLIT -> {
          FaultTargets target = target();
          byte[] at = target.splitRow(random);
          try (Admin admin = connection.getAdmin()) {
            admin.split(target.table(), at);
            counts.get(fault).incrementAndGet();
            yield "split of " + target.table() + " at " + org.apache.hadoop.hbase.util.Bytes.toStringBinary(at);
          } catch (IOException e) { // the row starts a region already, or its region is splitting: skip this one
            yield "no split at " + org.apache.hadoop.hbase.util.Bytes.toStringBinary(at) + " (" + e.getMessage() + ")";
          }
        }
      };
    } finally { // a fault that failed to come back stalled clients too
      if (counts.get(fault).get() > countBefore) {
        timeline.stalls().fault(new Stalls.Injected(fault, started, System.nanoTime(), hitKnown ? hit : null,
            placedBefore));
      }
    }
    long ended = System.nanoTime();
    timeline.fault(what, started, ended);
    out.printf("chaos: %s; cluster serving %.1f s after it began%n", what, (ended - started) / 1e9);
  }

  /** Gives the plain HBase table a region on {@code role}'s server; the fault goes on whatever happens. */
  private void givePlainRegion(String role) {
    int port = rpcPort(role);
    try (Admin admin = connection.getAdmin()) {
      java.util.Optional<ServerName> server = admin.getRegionServers().stream().filter(s -> s.getPort() == port)
          .findFirst();
      if (server.isPresent()) {
        plain.regionOn(server.get(), out);
      } else {
        out.println("chaos: " + role + " is not registered yet; the plain HBase table may have no region there");
      }
    } catch (IOException | RuntimeException e) {
      out.println("chaos: the plain HBase table may have no region on " + role + " (" + e.getMessage() + ")");
    }
  }

  /** Waits until {@code role} has exited, at most {@code timeout}. */
  private void awaitGone(String role, Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (cluster.pid(role) >= 0 && System.nanoTime() < deadline) {
      sleep(Duration.ofMillis(250));
    }
  }

  private void counted(Fault fault, boolean sent) {
    if (sent) {
      counts.get(fault).incrementAndGet();
    }
  }

  /** A region server no other fault of this round holds: a leader's server every other time, else any. */
  private String regionServer(Set<String> taken) throws IOException {
    List<String> servers = cluster.layout().roles().stream().filter(ClusterLayout::isRegionServer).toList();
    String pick = null;
    if (random.nextBoolean()) {
      pick = roleServing(leaderRegion(target()).getServerName().getPort());
    }
    if (pick == null || taken.contains(pick)) {
      List<String> free = servers.stream().filter(s -> !taken.contains(s)).toList();
      pick = free.isEmpty() ? servers.get(0) : free.get(random.nextInt(free.size()));
    }
    taken.add(pick);
    return pick;
  }

  /**
   * Up to {@code n} region servers that host a region of the bank table and no other fault of this round holds
   * (taken for it): a test fault reaches a server through one of its G-Store regions.
   */
  private List<ServerName> bankServers(Set<String> taken, int n) throws IOException {
    List<ServerName> hosting = new ArrayList<>();
    try (RegionLocator locator = connection.getRegionLocator(bank.table())) {
      for (HRegionLocation l : locator.getAllRegionLocations()) {
        String role = roleServing(l.getServerName().getPort());
        if (role != null && !taken.contains(role) && !hosting.contains(l.getServerName())) {
          hosting.add(l.getServerName());
        }
      }
    }
    Collections.shuffle(hosting, random);
    List<ServerName> picked = hosting.subList(0, Math.min(n, hosting.size()));
    picked.forEach(s -> taken.add(roleServing(s.getPort())));
    return new ArrayList<>(picked);
  }

  /**
   * Asks {@code server} (through a bank region it hosts) to drop its G-Store datagrams to {@code dropTo} and move
   * its G-Store clock by {@code skewMillis}, for {@code length}; the server goes back by itself. Returns why it did
   * not take it (its region moved, the call failed: another fault may be under way), or null.
   */
  private String testFault(ServerName server, Set<ServerName> dropTo, long skewMillis, Duration length) {
    TestFaultRequest.Builder request = TestFaultRequest.newBuilder().setSkewMs(skewMillis)
        .setDurationMs(length.toMillis());
    dropTo.forEach(peer -> request.addDropTo(HBaseKeyLocator.nodeId(peer).value()));
    try (RegionLocator locator = connection.getRegionLocator(bank.table());
        Table table = connection.getTable(bank.table())) {
      HRegionLocation region = locator.getAllRegionLocations().stream()
          .filter(l -> l.getServerName().equals(server)).findFirst()
          .orElseThrow(() -> new IOException(server + " hosts no bank region any more"));
      GStoreService.newBlockingStub(table.coprocessorService(region.getRegion().getStartKey()))
          .testFault(null, request.build());
      return null;
    } catch (IOException | ServiceException | RuntimeException e) {
      return "the test fault did not reach " + server + ": " + e.getMessage();
    }
  }

  /** The workload the next aimed fault hits, in turn at random. */
  private FaultTargets target() {
    return targets.get(random.nextInt(targets.size()));
  }

  /** The region of a leader row of {@code target} (of the bank's if it has no group live). */
  private HRegionLocation leaderRegion(FaultTargets target) throws IOException {
    byte[] row = target.leaderRow(random);
    FaultTargets aimed = row == null ? bank : target;
    try (RegionLocator locator = connection.getRegionLocator(aimed.table())) {
      return locator.getRegionLocation(row == null ? bank.leaderRow(random) : row, true);
    }
  }

  private int rpcPort(String role) {
    return cluster.layout().ports(role).get("rpc");
  }

  private String roleServing(int rpcPort) {
    for (String role : cluster.layout().roles()) {
      if (ClusterLayout.isRegionServer(role) && cluster.layout().ports(role).get("rpc") == rpcPort) {
        return role;
      }
    }
    return null;
  }

  private static void sleep(Duration d) throws IOException {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted during a fault", e);
    }
  }
}
