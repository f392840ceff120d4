package org.gstore.common.protocol;

/**
 * How long a node waits for an answer before it first sends a {@code J}, {@code JA} or {@code D} again: adapted to
 * the round trips it measures, as TCP adapts its retransmission timeout (RFC 6298), since a fixed delay shorter
 * than the real round trip only sends copies that queue behind the answer. A round trip here is the whole
 * exchange, durable writes included: the sender's state write, the datagram, the receiver's write, the answer.
 *
 * <p>The timeout is {@code SRTT + 4 × RTTVAR} over samples smoothed with gains 1/8 and 1/4, kept between
 * {@link ProtocolConfig#retryInitialMillis()} and {@link ProtocolConfig#retryMaxMillis()}, and starts at the
 * former. Samples come only from exchanges answered before their first retry (Karn's rule: an answer to a message
 * sent twice cannot tell which copy it answers). So that too short a timeout cannot starve itself of samples, a
 * retry timer that expires doubles it (at most once per timeout period), until answers arrive in time again.
 * Deterministic: time is the caller's {@code now}, so the simulator replays it exactly.
 */
final class RetryTimeout {
  private final long floorMillis;
  private final long capMillis;
  private double smoothed = -1;
  private double variation;
  private long millis;
  private long lastBackoffAt = Long.MIN_VALUE;

  RetryTimeout(ProtocolConfig config) {
    this.floorMillis = config.retryInitialMillis();
    this.capMillis = config.retryMaxMillis();
    this.millis = floorMillis;
  }

  /** The delay before a message is first sent again. */
  long millis() {
    return millis;
  }

  /** The longest delay between two sends of the same message. */
  long capMillis() {
    return capMillis;
  }

  /** An exchange sent once was answered after {@code roundTripMillis}. */
  void sample(long roundTripMillis) {
    double r = Math.max(0, roundTripMillis);
    if (smoothed < 0) {
      smoothed = r;
      variation = r / 2;
    } else {
      variation = 0.75 * variation + 0.25 * Math.abs(smoothed - r);
      smoothed = 0.875 * smoothed + 0.125 * r;
    }
    millis = clamp(Math.round(smoothed + 4 * variation));
  }

  /** A retry timer expired unanswered at {@code now}: the timeout may be too short. */
  void expired(long now) {
    if (lastBackoffAt == Long.MIN_VALUE || now - lastBackoffAt >= millis) {
      millis = clamp(millis * 2);
      lastBackoffAt = now;
    }
  }

  private long clamp(long value) {
    return Math.max(floorMillis, Math.min(capMillis, value));
  }
}
