package org.gstore.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OutageStepTest {
  @Test
  void anEndLineReadsBackBehindALogPrefixWithEveryFieldOneWord() {
    String line = "2026-12-07 14:02:05,166 INFO [gstore-replay] recovery.OutageStep: " + OutageStep.endLine(
        OutageStep.Kind.WAL_REPLAY, 2037, 5_000, "failed: lock lost", "localhost,21010,1", null, "a log");

    assertThat(OutageStep.parse(line)).hasValueSatisfying(s -> {
      assertThat(s.kind()).isEqualTo(OutageStep.Kind.WAL_REPLAY);
      assertThat(s.millis()).isEqualTo(2037);
      assertThat(s.startedAt()).isEqualTo(5_000 - 2037);
      assertThat(s.outcome()).isEqualTo("failed:_lock_lost");
      assertThat(s.at()).isEqualTo("localhost,21010,1");
      assertThat(s.about()).isEqualTo("-");
      assertThat(s.on()).isEqualTo("a_log");
    });
  }

  @Test
  void startLinesAndUnknownStepsAreNotEnds() {
    assertThat(OutageStep.parse(OutageStep.MARK + "wal-replay start at=a about=- on=b")).isEmpty();
    assertThat(OutageStep.parse(OutageStep.MARK + "no-such-step end ms=1 ended=2 outcome=ok at=a about=b on=c"))
        .isEmpty();
    assertThat(OutageStep.parse("an ordinary line")).isEmpty();
  }

  @Test
  void aLabelIsTheKindsNameInLowerCaseWithHyphens() {
    assertThat(OutageStep.Kind.REGION_DRAIN.label()).isEqualTo("region-drain");
    assertThat(OutageStep.Kind.ofLabel("ship-again")).contains(OutageStep.Kind.SHIP_AGAIN);
  }
}
