package org.gstore.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Log ids: each instance's own, and which logs may still be written. */
class LogIdTest {
  private static final String SERVER = "rs1,16020,1";

  /**
   * Issue 35, item 7: a new instance's id came from the wall clock alone; a clock stepped back below the instant
   * the server published at its last stop named a live log that other servers took for an earlier one, and fenced.
   */
  @Test
  void aNewInstanceAfterTheClockSteppedBackIsStillTheNewest() {
    String stopped = LogId.of(SERVER, 5_000); // published when G-Store last stopped here
    long instance = LogId.nextInstance(SERVER, 3_000, List.of(LogId.of(SERVER, 4_000), stopped,
        LogId.of("rs2,16020,1", 9_000)));
    assertThat(instance).isEqualTo(5_001);
    String live = LogId.of(SERVER, instance);
    assertThat(LogId.mayStillBeWritten(live, "rs3,16020,1", Set.of(SERVER),
        Map.of(SERVER, new ClaimStore.Flushed(live, -1)))).as("other servers leave it alone").isTrue();
    assertThat(LogId.mayStillBeWritten(LogId.of(SERVER, 4_000), "rs3,16020,1", Set.of(SERVER),
        Map.of(SERVER, new ClaimStore.Flushed(live, -1)))).as("and may recover the earlier one").isFalse();
  }

  @Test
  void aClockAheadOfEveryEarlierInstanceIsTakenAsItIs() {
    assertThat(LogId.nextInstance(SERVER, 8_000, List.of(LogId.of(SERVER, 4_000)))).isEqualTo(8_000);
  }
}
