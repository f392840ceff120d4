package org.gstore.coprocessor.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import org.gstore.common.sim.SeededRuns;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded schedules of {@link WalFilesSimulation}: the shared WAL written through failing writes, a crash, damage to
 * closed files, and the replay's reading. {@code -Dgstore.walfiles.sim.runs=N} sets how many;
 * {@code -Dgstore.walfiles.sim.seed=S} replays one (or starts the N runs at S).
 */
class WalFilesSimulationTest {
  private static final int DEFAULT_RUNS = 60;

  @Test
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void everyAcknowledgedRecordIsReadOnceInOrderOrTheReplayStopsLoudly() throws Exception {
    SeededRuns schedules = SeededRuns.fromSystemProperties("gstore.walfiles.sim", DEFAULT_RUNS);
    int violations = 0;
    int damaged = 0;
    int loud = 0;
    long acknowledged = 0;
    String first = null;
    for (int i = 0; i < schedules.runs(); i++) {
      WalFilesSimulation sim = new WalFilesSimulation(schedules.firstSeed() + i, WalFilesSimulation.Defect.NONE);
      WalFilesSimulation.Result r = sim.run();
      violations += r.violations().size();
      damaged += r.damaged() ? 1 : 0;
      loud += r.stoppedLoudly() ? 1 : 0;
      acknowledged += r.acknowledged();
      if (!r.ok() && first == null) {
        first = "seed=" + r.seed() + " (replay: -Dgstore.walfiles.sim.seed=" + r.seed() + ")\n" + r.violations()
            + "\n" + String.join("\n", sim.trace());
      }
    }
    System.out.printf("wal-files-simulation runs=%d violations=%d damaged=%d stopped-loudly=%d seed=%d"
        + " (acknowledged records: %d)%n", schedules.runs(), violations, damaged, loud, schedules.firstSeed(),
        acknowledged);
    if (first != null) {
      fail(first);
    }
    if (schedules.runs() >= 20) { // half the schedules damage a closed file: a replay of one seed may not
      assertThat(loud).as("damage that the replay must stop on happened").isPositive();
    }
  }

  /** A log without the mark that its writers seal failed writes reads a cut closed file as a torn tail. */
  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void thePlantedDefectIsCaught() throws Exception {
    for (int i = 0; i < 2_000; i++) {
      WalFilesSimulation.Result r =
          new WalFilesSimulation(35_000_000L + i, WalFilesSimulation.Defect.LOG_WITHOUT_SEALS_MARK).run();
      if (!r.ok()) {
        System.out.printf("planted defect LOG_WITHOUT_SEALS_MARK caught after %d schedule(s), seed=%d: %s%n", i + 1,
            r.seed(), r.violations().get(0));
        return;
      }
    }
    fail("the simulation must catch the planted defect LOG_WITHOUT_SEALS_MARK");
  }
}
