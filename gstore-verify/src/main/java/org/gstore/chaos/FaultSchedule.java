package org.gstore.chaos;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.hadoop.hbase.client.Connection;
import org.gstore.testing.process.ProcessCluster;

/**
 * The fault schedule of a chaos run: every {@code every}, one fault, and now and then a second one at the same time
 * (a crash during a move, a pause during a balancer run). The kinds come round in a shuffled order, so a run with
 * {@code n} kinds has hit each once after {@code n} faults, and a kind that could not be injected comes next again.
 * {@link FaultInjector} injects each (two at once never hit the same server; the list-append workload's targets are
 * groups live at that moment, some of them forming or dissolving), and returns only once what it stopped is back and
 * the cluster serves. A stop request is honoured once {@code minFaults} faults and one of each kind happened;
 * {@link #abort()} ends the schedule regardless.
 */
final class FaultSchedule implements Runnable {
  private final FaultInjector injector;
  private final Supervisor supervisor;
  private final Duration every;
  private final List<Fault> kinds;
  private final int minFaults;
  private final Random random;
  private final PrintStream out;
  private final Map<Fault, AtomicInteger> counts = new EnumMap<>(Fault.class);
  private final List<Fault> cycle = new ArrayList<>();
  private volatile boolean stopRequested;
  private volatile boolean aborted;
  private volatile Throwable failure;

  /**
   * @param bank the bank, through whose regions test faults reach a server
   * @param targets what moves, splits and leaders' servers are aimed at: the bank and the other workloads
   * @param placement the region servers (rpc ports) each G-Store client's rows are on now, by client thread
   */
  FaultSchedule(ProcessCluster cluster, Connection connection, Bank bank, List<FaultTargets> targets,
      Duration every, Duration down, Duration pause, Set<Fault> kinds, int minFaults, long seed, PrintStream out,
      Timeline timeline, Supplier<Map<String, Set<Integer>>> placement, PlainLoad plain) {
    this.every = every;
    this.kinds = List.copyOf(kinds);
    this.minFaults = minFaults;
    this.random = new Random(seed);
    this.out = out;
    for (Fault f : Fault.values()) {
      counts.put(f, new AtomicInteger());
    }
    this.injector = new FaultInjector(cluster, connection, bank, targets, down, pause, random, out, timeline,
        placement, counts, plain);
    this.supervisor = new Supervisor(cluster, out);
  }

  /** How many faults of each kind were injected so far. */
  Map<Fault, Integer> counts() {
    Map<Fault, Integer> now = new EnumMap<>(Fault.class);
    counts.forEach((f, n) -> now.put(f, n.get()));
    return now;
  }

  int total() {
    return counts.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  /** Whether every kind asked for was injected at least once, and at least {@code minFaults} in all. */
  boolean complete() {
    return total() >= minFaults && kinds.stream().allMatch(f -> counts.get(f).get() > 0);
  }

  /** Why the schedule stopped early (a process that would not come back), or null. */
  Throwable failure() {
    return failure;
  }

  /** Asks the schedule to end after the current faults, once it is {@link #complete()}. */
  void stop() {
    stopRequested = true;
  }

  /** Ends the schedule after the current faults, however many happened. */
  void abort() {
    aborted = true;
  }

  private boolean done() {
    return aborted || (stopRequested && complete());
  }

  @Override
  public void run() {
    long next = System.nanoTime() + every.toNanos();
    try {
      while (!done()) {
        if (!sleepUntil(next)) {
          return;
        }
        supervisor.reviveUnplanned();
        List<Fault> now = pick();
        try {
          injectTogether(now);
        } catch (IOException | RuntimeException e) {
          if (supervisor.reviveUnplanned() == 0) {
            throw e; // a process the faults brought down would not come back
          }
          out.println("chaos: a fault could not end as planned (" + e.getMessage() + "): the cluster was waiting for"
              + " a region server that died by itself");
        }
        requeueMissed(now);
        next = Math.max(next + every.toNanos(), System.nanoTime());
      }
    } catch (IOException | RuntimeException e) {
      failure = e;
      out.println("chaos: the fault schedule failed: " + e);
    }
  }

  /**
   * The next kind of the shuffled cycle and, one time in three, another kind at the same time; never two of an
   * operator's operations at once (no operator restarts one server while decommissioning another).
   */
  private List<Fault> pick() {
    if (cycle.isEmpty()) {
      cycle.addAll(kinds);
      Collections.shuffle(cycle, random);
    }
    Fault first = cycle.remove(0);
    List<Fault> now = new ArrayList<>(List.of(first));
    List<Fault> others = kinds.stream().filter(k -> k != first && !(k.operation() && first.operation())).toList();
    if (!others.isEmpty() && random.nextInt(3) == 0) {
      now.add(others.get(random.nextInt(others.size())));
    }
    return now;
  }

  /**
   * Puts back at the head of the cycle each kind of {@code tried} that could not be injected this round (a partition
   * needs two free servers hosting a bank region, a test fault can miss a region that just moved) and has never been
   * injected: a run then reaches every kind within a few rounds instead of a whole cycle later, or never.
   */
  private void requeueMissed(List<Fault> tried) {
    for (Fault f : tried) {
      if (counts.get(f).get() == 0 && !cycle.contains(f)) {
        cycle.add(0, f);
      }
    }
  }

  private void injectTogether(List<Fault> faults) throws IOException {
    Set<String> taken = Collections.synchronizedSet(new HashSet<>());
    List<Thread> others = new ArrayList<>();
    Throwable[] otherFailure = new Throwable[1];
    for (Fault f : faults.subList(1, faults.size())) {
      Thread t = new Thread(() -> {
        try {
          injector.inject(f, taken);
        } catch (IOException | RuntimeException e) {
          otherFailure[0] = e;
        }
      }, "chaos-" + f.option());
      t.start();
      others.add(t);
    }
    injector.inject(faults.get(0), taken);
    for (Thread t : others) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted waiting for a fault", e);
      }
    }
    if (otherFailure[0] != null) {
      throw new IOException("a fault failed: " + otherFailure[0], otherFailure[0]);
    }
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
