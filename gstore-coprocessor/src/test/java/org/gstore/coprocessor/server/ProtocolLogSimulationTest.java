package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import org.gstore.common.sim.SeededRuns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded schedules of {@link ProtocolLogSimulation}: protocol state logged over several WAL streams, checkpointed,
 * truncated, crashed. {@code -Dgstore.protocollog.sim.runs=N} sets how many; {@code -Dgstore.protocollog.sim.seed=S}
 * replays one (or starts the N runs at S).
 */
class ProtocolLogSimulationTest {
  private static final int DEFAULT_RUNS = 60;

  @Test
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void nothingLoggedIsLostAndNoCheckpointedRecordIsReplayed() throws Exception {
    SeededRuns schedules = SeededRuns.fromSystemProperties("gstore.protocollog.sim", DEFAULT_RUNS);
    int violations = 0;
    long records = 0;
    String first = null;
    for (int i = 0; i < schedules.runs(); i++) {
      ProtocolLogSimulation sim = new ProtocolLogSimulation(schedules.firstSeed() + i,
          ProtocolLogSimulation.Defect.NONE);
      ProtocolLogSimulation.Result r = sim.run();
      violations += r.violations().size();
      records += r.records();
      if (!r.ok() && first == null) {
        first = "seed=" + r.seed() + " (replay: -Dgstore.protocollog.sim.seed=" + r.seed() + ")\n" + r.violations()
            + "\n" + String.join("\n", sim.trace());
      }
    }
    System.out.printf("protocol-log-simulation runs=%d violations=%d seed=%d (records logged: %d)%n",
        schedules.runs(), violations, schedules.firstSeed(), records);
    if (first != null) {
      fail(first);
    }
    assertThat(records).isPositive();
  }

  /** Marks logged but not held: a stream pinned by a commit outlives the newest mark, in another stream. */
  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void thePlantedDefectIsCaught() throws Exception {
    for (int i = 0; i < 2_000; i++) {
      ProtocolLogSimulation.Result r =
          new ProtocolLogSimulation(36_000_000L + i, ProtocolLogSimulation.Defect.MARKS_NOT_HELD).run();
      if (!r.ok()) {
        System.out.printf("planted defect MARKS_NOT_HELD caught after %d schedule(s), seed=%d: %s%n", i + 1,
            r.seed(), r.violations().get(0));
        return;
      }
    }
    fail("the simulation must catch the planted defect MARKS_NOT_HELD");
  }
}
