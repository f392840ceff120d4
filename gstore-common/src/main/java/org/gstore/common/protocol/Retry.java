package org.gstore.common.protocol;

/** A retry timer with exponential backoff, capped; lives in memory only (a restarted node retries at once). */
final class Retry {
  private final ProtocolConfig config;
  private long delay;
  private long dueAt;

  Retry(ProtocolConfig config, long now) {
    this.config = config;
    this.delay = config.retryInitialMillis();
    this.dueAt = now + delay;
  }

  /** A timer that fires at the first tick: for work resumed after a restart or a move. */
  static Retry immediately(ProtocolConfig config, long now) {
    Retry r = new Retry(config, now);
    r.dueAt = now;
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
    delay = Math.min(delay * 2, config.retryMaxMillis());
    dueAt = now + delay;
    return true;
  }
}
