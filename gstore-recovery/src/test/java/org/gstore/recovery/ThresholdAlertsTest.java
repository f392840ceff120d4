package org.gstore.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import org.gstore.recovery.ThresholdAlerts.Cause;
import org.gstore.recovery.ThresholdAlerts.Observation;
import org.junit.jupiter.api.Test;

/** Which blocked thresholds raise an alert, when, and when it clears. */
class ThresholdAlertsTest {
  private final ThresholdAlerts alerts = new ThresholdAlerts(60_000, 120_000);

  @Test
  void aShipperThatFallsBehindPastTheLimitRaisesAnAlertUntilItCatchesUp() {
    assertThat(alerts.check(new Observation(59_000, 0, 10, 0, 0), 0)).isEmpty();
    assertThat(alerts.check(new Observation(61_000, 0, 10, 0, 0), 1_000)).containsExactly(Cause.SHIPPING_BLOCKED);
    assertThat(alerts.check(new Observation(0, 0, 10, 0, 0), 2_000)).isEmpty();
  }

  @Test
  void persistenceIsBlockedOnlyWhenTpStaysStillWithCommitsUnpersisted() {
    alerts.check(new Observation(0, 5, 10, 0, 0), 0);
    assertThat(alerts.check(new Observation(0, 5, 10, 0, 0), 120_000)).as("at the limit").isEmpty();
    assertThat(alerts.check(new Observation(0, 5, 10, 0, 0), 120_001)).containsExactly(Cause.PERSISTENCE_BLOCKED);
    assertThat(alerts.check(new Observation(0, 5, 11, 0, 0), 125_000)).as("T_P advanced").isEmpty();

    assertThat(alerts.check(new Observation(0, 0, 11, 0, 0), 500_000)).as("nothing to persist: T_P may stay")
        .isEmpty();
    assertThat(alerts.check(new Observation(0, 3, 11, 0, 0), 600_000)).as("still within the limit since then")
        .isEmpty();
  }

  @Test
  void aQuarantinedCommitRaisesAnAlertWhileItIsQuarantined() {
    assertThat(alerts.check(new Observation(0, 0, 0, 1, 0), 0)).containsExactly(Cause.COMMIT_QUARANTINED);
    assertThat(alerts.isActive(Cause.COMMIT_QUARANTINED)).isTrue();
    assertThat(alerts.check(new Observation(0, 0, 0, 0, 0), 1)).isEmpty();
  }

  @Test
  void heartbeatsThatKeepFailingRaiseAnAlertAndOneSuccessClearsIt() {
    alerts.check(new Observation(0, 0, 0, 0, 0), 0);
    assertThat(alerts.check(new Observation(0, 0, 0, 0, 1), 5_000)).isEmpty();
    assertThat(alerts.check(new Observation(0, 0, 0, 0, 2), 60_000)).isEmpty();
    assertThat(alerts.check(new Observation(0, 0, 0, 0, 3), 125_000)).containsExactly(Cause.HEARTBEAT_FAILING);
    assertThat(alerts.check(new Observation(0, 0, 0, 0, 3), 130_000)).as("a beat succeeded").isEmpty();
  }

  @Test
  void aBeatThatDoesNotFinishRaisesTheHeartbeatAlertUntilItDoes() {
    assertThat(alerts.check(new Observation(0, 0, 10, 0, 0, 119_000, 0), 0)).isEmpty();
    assertThat(alerts.check(new Observation(0, 0, 10, 0, 0, 120_000, 0), 1_000))
        .containsExactly(Cause.HEARTBEAT_FAILING);
    assertThat(alerts.check(new Observation(0, 0, 10, 0, 0, 0, 0), 2_000)).as("it finished").isEmpty();
  }

  @Test
  void aRegionWaitingForAReplayPastTheLimitRaisesAnAlertUntilItServes() {
    assertThat(alerts.check(new Observation(0, 0, 10, 0, 0, 0, 120_000), 0)).as("at the limit").isEmpty();
    assertThat(alerts.check(new Observation(0, 0, 10, 0, 0, 0, 120_001), 1_000))
        .containsExactly(Cause.REPLAY_BLOCKED);
    assertThat(alerts.check(new Observation(0, 0, 10, 0, 0, 0, 0), 2_000)).isEmpty();
  }
}
