package org.gstore.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import org.gstore.common.sim.SeededRuns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
    runSchedules(SimCluster.Durability.TABLES);
  }

  /**
   * The same with protocol state logged: checkpoints written partly or late, recoveries that crash, moves that crash
   * before or during the old host's flush. Besides safety, every load reads exactly the durable state, and at the
   * end the tables equal it.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.MINUTES)
  void randomSchedulesWithLoggedStateStaySafeAndLoadExactlyTheDurableState() {
    runSchedules(SimCluster.Durability.LOG);
  }

  private static void runSchedules(SimCluster.Durability durability) {
    SeededRuns schedules = SeededRuns.fromSystemProperties("gstore.sim", DEFAULT_RUNS);
    long base = schedules.firstSeed();
    int runs = schedules.runs();

    int violations = 0;
    int ghosts = 0;
    Simulation.Result firstFailure = null;
    java.util.Map<String, Long> totals = new java.util.TreeMap<>();
    for (int i = 0; i < runs; i++) {
      Simulation.Result r = new Simulation(base + i, Follower::new, durability, SimCluster.Defect.NONE).run();
      r.counts().forEach((k, v) -> totals.merge(k, v, Long::sum));
      violations += r.violations().size();
      ghosts += r.ghosts().size();
      if (!r.ok() && firstFailure == null) {
        firstFailure = r;
      }
    }
    System.out.println("simulation coverage (" + durability + "): " + totals);
    System.out.printf("simulation state=%s runs=%d violations=%d ghost-groups=%d seed=%d%n", durability, runs,
        violations, ghosts, base);
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

  /** Each planted defect in how logged state reaches the tables is caught, with the violation it causes. */
  @ParameterizedTest
  @EnumSource(value = SimCluster.Defect.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void simulatorCatchesEveryPlantedProtocolLogDefect(SimCluster.Defect defect) {
    Simulation.Result caught = firstFailure(Follower::new, SimCluster.Durability.LOG, defect, 2_000);
    assertThat(caught).as("planted defect " + defect + " must be caught").isNotNull();
    System.out.println("caught " + defect + " at seed " + caught.seed() + ": " + (caught.violations().isEmpty()
        ? "ghosts " + caught.ghosts() : caught.violations().get(0).lines().findFirst().orElse("")));
  }

  private static Simulation.Result firstFailure(ProtocolNode.FollowerFactory followers, int maxRuns) {
    return firstFailure(followers, SimCluster.Durability.TABLES, SimCluster.Defect.NONE, maxRuns);
  }

  private static Simulation.Result firstFailure(ProtocolNode.FollowerFactory followers,
      SimCluster.Durability durability, SimCluster.Defect defect, int maxRuns) {
    long base = 7_000_000L;
    for (int i = 0; i < maxRuns; i++) {
      Simulation.Result r = new Simulation(base + i, followers, durability, defect).run();
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
