package org.gstore.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The retry timeout follows measured round trips (RFC 6298's estimator), within the configured bounds. */
@Timeout(10)
class RetryTimeoutTest {
  private final ProtocolConfig config = new ProtocolConfig(20, 1_000, 1_000, 1_000, 600_000);

  @Test
  void startsAtTheFloorAndFollowsSteadyRoundTrips() {
    RetryTimeout t = new RetryTimeout(config);
    assertThat(t.millis()).isEqualTo(20);
    t.sample(100); // first sample: SRTT 100, RTTVAR 50
    assertThat(t.millis()).isEqualTo(300);
    for (int i = 0; i < 100; i++) {
      t.sample(100);
    }
    assertThat(t.millis()).as("variation decays: SRTT alone, but never under the floor").isBetween(100L, 105L);
    for (int i = 0; i < 100; i++) {
      t.sample(2);
    }
    assertThat(t.millis()).isEqualTo(20);
  }

  @Test
  void anAnswerInTheStepThatArmedTheTimerIsNoSample() {
    RetryTimeout t = new RetryTimeout(config);
    new Retry(t, 5).answered(5); // a key this node hosts answered within the step: no network round trip
    new Retry(t, 10).answered(210);
    assertThat(t.millis()).as("200 ms is the first sample: SRTT 200, RTTVAR 100").isEqualTo(600);
  }

  @Test
  void staysUnderTheCap() {
    RetryTimeout t = new RetryTimeout(config);
    t.sample(5_000);
    assertThat(t.millis()).isEqualTo(1_000);
  }

  @Test
  void anExpiredTimerDoublesItAtMostOncePerTimeout() {
    RetryTimeout t = new RetryTimeout(config);
    t.expired(0);
    assertThat(t.millis()).isEqualTo(40);
    t.expired(10); // a burst of timers expiring together counts once
    t.expired(39);
    assertThat(t.millis()).isEqualTo(40);
    t.expired(40);
    assertThat(t.millis()).isEqualTo(80);
  }

  @Test
  void onlyExchangesAnsweredBeforeTheirFirstRetryAreSampled() {
    RetryTimeout t = new RetryTimeout(config);
    Retry answeredInTime = new Retry(t, 1_000);
    answeredInTime.answered(1_060);
    assertThat(t.millis()).as("one sample of 60 ms").isEqualTo(180);

    RetryTimeout u = new RetryTimeout(config);
    Retry retried = new Retry(u, 1_000);
    assertThat(retried.fire(1_020)).isTrue();
    assertThat(u.millis()).as("the expiry doubled it").isEqualTo(40);
    retried.answered(1_500); // which copy does it answer? Karn: no sample
    assertThat(u.millis()).isEqualTo(40);

    Retry resumed = Retry.immediately(u, 2_000);
    resumed.answered(2_001);
    assertThat(u.millis()).as("work resumed after a restart measures nothing").isEqualTo(40);
  }

  @Test
  void aNewTimerStartsWithTheCurrentTimeoutAndBacksOffToTheCap() {
    RetryTimeout t = new RetryTimeout(config);
    t.sample(100);
    Retry r = new Retry(t, 0);
    assertThat(r.dueAt()).isEqualTo(300);
    long now = 300;
    for (int i = 0; i < 10; i++) {
      assertThat(r.fire(now)).isTrue();
      now = r.dueAt();
    }
    assertThat(r.fire(now)).isTrue();
    assertThat(r.dueAt() - now).isEqualTo(1_000);
  }
}
