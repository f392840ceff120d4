package org.gstore.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import org.gstore.common.sim.SeededRuns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs many seeded schedules of the protocol under loss, duplication, reordering, partitions, crashes and key
 * moves. {@code -Dgstore.sim.runs=N} sets how many; {@code -Dgstore.sim.seed=S} replays one schedule (or starts the
 * N runs at seed S). A failure prints the seed and the trace of events that led to it.
 */
class SimulationTest {
  private static final int DEFAULT_RUNS = 400;

  @Test
  @Timeout(value = 60, unit = TimeUnit.MINUTES)
  void randomSchedulesStaySafeAndLeaveNoGhostGroups() {
    SeededRuns schedules = SeededRuns.fromSystemProperties("gstore.sim", DEFAULT_RUNS);
    long base = schedules.firstSeed();
    int runs = schedules.runs();

    int violations = 0;
    int ghosts = 0;
    Simulation.Result firstFailure = null;
    java.util.Map<String, Long> totals = new java.util.TreeMap<>();
    for (int i = 0; i < runs; i++) {
      Simulation.Result r = new Simulation(base + i, Follower::new).run();
      r.counts().forEach((k, v) -> totals.merge(k, v, Long::sum));
      violations += r.violations().size();
      ghosts += r.ghosts().size();
      if (!r.ok() && firstFailure == null) {
        firstFailure = r;
      }
    }
    System.out.println("simulation coverage: " + totals);
    System.out.printf("simulation runs=%d violations=%d ghost-groups=%d seed=%d%n", runs, violations, ghosts, base);
    if (firstFailure != null) {
      fail(report(firstFailure));
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void simulatorCatchesAFollowerThatAcceptsStaleJoinAckAcks() {
    Simulation.Result caught = firstFailure(AcceptsStaleJoinAckAck::new, 3_000);
    assertThat(caught).as("a follower that ignores yield ids must be caught").isNotNull();
    assertThat(caught.ghosts()).as("stale JAAs form ghost groups:\n" + report(caught)).isNotEmpty();
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void simulatorCatchesAFollowerThatJoinsKeysOwnedByAnotherGroup() {
    Simulation.Result caught = firstFailure(JoinsAnyGroup::new, 500);
    assertThat(caught).as("a follower that yields a key twice must be caught").isNotNull();
    // either the leader's view (invariant 1) or a client's CREATED (invariant 4) notices the key's second owner
    assertThat(caught.violations()).anyMatch(v -> v.contains("counts") && v.contains("as joined")
        || v.contains("holds") && v.contains("durable owner is"));
  }

  private static Simulation.Result firstFailure(ProtocolNode.FollowerFactory followers, int maxRuns) {
    long base = 7_000_000L;
    for (int i = 0; i < maxRuns; i++) {
      Simulation.Result r = new Simulation(base + i, followers).run();
      if (!r.ok()) {
        System.out.printf("planted bug caught after %d run(s), seed=%d%n", i + 1, r.seed());
        return r;
      }
    }
    return null;
  }

  static String report(Simulation.Result r) {
    StringBuilder sb = new StringBuilder();
    sb.append("seed=").append(r.seed()).append(" (replay: -Dgstore.sim.seed=").append(r.seed()).append(")\n");
    r.violations().forEach(v -> sb.append("violation: ").append(v).append('\n'));
    r.ghosts().forEach(g -> sb.append("ghost: ").append(g).append('\n'));
    sb.append("last events:\n");
    r.trace().forEach(t -> sb.append("  ").append(t).append('\n'));
    return sb.toString();
  }

  /** Planted bug: takes any JAA of the right group as fresh, ignoring the yield id. */
  static final class AcceptsStaleJoinAckAck extends Follower {
    AcceptsStaleJoinAckAck(ProtocolConfig config, RetryTimeout timeout, UidSource uids, ProtocolStats stats) {
      super(config, timeout, uids, stats);
    }

    @Override
    protected boolean isFresh(OwnerRecord current, JoinAckAck jaa) {
      return current.group().equals(jaa.group());
    }
  }

  /** Planted bug: treats every J as a duplicate, so a key already in a group joins another. */
  static final class JoinsAnyGroup extends Follower {
    JoinsAnyGroup(ProtocolConfig config, RetryTimeout timeout, UidSource uids, ProtocolStats stats) {
      super(config, timeout, uids, stats);
    }

    @Override
    protected boolean isSameGroup(OwnerRecord current, Join j) {
      return true;
    }
  }
}
