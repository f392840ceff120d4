package org.gstore.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import org.gstore.common.sim.SeededRuns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded schedules of the recovery bookkeeping ({@link RecoverySimulation}). {@code -Dgstore.recovery.sim.runs=N}
 * sets how many; {@code -Dgstore.recovery.sim.seed=S} replays one (or starts the N runs at S). A failure prints the
 * seed and the last events.
 */
class RecoverySimulationTest {
  private static final int DEFAULT_RUNS = 2_000;

  @Test
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void noAcknowledgedCommitIsLostAndNothingIsForgottenBeforeItIsPersisted() {
    SeededRuns schedules = SeededRuns.fromSystemProperties("gstore.recovery.sim", DEFAULT_RUNS);
    long base = schedules.firstSeed();
    int runs = schedules.runs();
    int violations = 0;
    int lost = 0;
    long commits = 0;
    RecoverySimulation.Result firstFailure = null;
    for (int i = 0; i < runs; i++) {
      RecoverySimulation.Result r = new RecoverySimulation(base + i, false).run();
      violations += r.violations().size();
      lost += r.lost();
      commits += r.acknowledged();
      if (!r.ok() && firstFailure == null) {
        firstFailure = r;
      }
    }
    System.out.printf("recovery-simulation runs=%d violations=%d lost-commits=%d seed=%d (acknowledged commits:"
        + " %d)%n", runs, violations, lost, base, commits);
    if (firstFailure != null) {
      fail(report(firstFailure));
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aWatermarkThatPassesARecordNotHandedOverIsCaught() {
    RecoverySimulation.Result caught = null;
    for (int i = 0; i < 500 && caught == null; i++) {
      RecoverySimulation.Result r = new RecoverySimulation(9_000_000L + i, true).run();
      if (!r.ok()) {
        System.out.printf("planted recovery bug caught after %d run(s), seed=%d%n", i + 1, r.seed());
        caught = r;
      }
    }
    assertThat(caught).as("a WAL watermark that passes a record not yet handed to the shipper must be caught")
        .isNotNull();
    assertThat(caught.violations()).anyMatch(v -> v.contains("before it is persisted")
        || v.contains("neither persisted nor held"));
  }

  private static String report(RecoverySimulation.Result r) {
    StringBuilder sb = new StringBuilder("seed=" + r.seed() + " (replay: -Dgstore.recovery.sim.seed=" + r.seed()
        + ")\n");
    r.violations().forEach(v -> sb.append("violation: ").append(v).append('\n'));
    sb.append("last events:\n");
    r.trace().forEach(t -> sb.append("  ").append(t).append('\n'));
    return sb.toString();
  }
}
