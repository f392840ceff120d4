package org.gstore.common.protocol;

/**
 * A retry timer with exponential backoff, capped; lives in memory only (a restarted node retries at once). Its
 * first delay is the node's current {@link RetryTimeout}, which it feeds: the round trip of an exchange answered
 * before the first retry, or the news that the timer expired.
 */
final class Retry {
  private final RetryTimeout timeout;
  private final long armedAt;
  private long delay;
  private long dueAt;
  private boolean fired;

  Retry(RetryTimeout timeout, long now) {
    this.timeout = timeout;
    this.armedAt = now;
    this.delay = timeout.millis();
    this.dueAt = now + delay;
  }

  /** A timer that fires at the first tick: for work resumed after a restart or a move. */
  static Retry immediately(RetryTimeout timeout, long now) {
    Retry r = new Retry(timeout, now);
    r.dueAt = now;
    r.fired = true; // no round trip to measure: whatever answers, answers an earlier life's message too
    return r;
  }

  long dueAt() {
    return dueAt;
  }

  /** True if the timer is due; then re-arms it with a doubled delay. */
  boolean fire(long now) {
    if (now < dueAt) {
      return false;
    }
    if (!fired) {
      fired = true;
      timeout.expired(now);
    }
    delay = Math.min(delay * 2, timeout.capMillis());
    dueAt = now + delay;
    return true;
  }

  /**
   * An answer to the message this timer retries arrived at {@code now}. One in the step that armed the timer came
   * from a key this node hosts (handled in that same step): it says nothing of the network, so it is no sample.
   */
  void answered(long now) {
    if (!fired && now > armedAt) {
      timeout.sample(now - armedAt);
    }
  }
}
