package org.gstore.common.protocol;

/**
 * Tunables of the protocol engine.
 *
 * @param retryInitialMillis delay before the first retry of {@code J}, {@code JA} or {@code D}
 * @param retryMaxMillis the backoff doubles up to this delay and stays there: retries never stop, which is what
 *     makes creates and deletes terminate once the network heals
 * @param maxGroupSize the largest number of members (leader included) a group may have
 * @param uidBlock how many {@link Uid}s a node reserves durably at once
 * @param endedRetentionMillis how long an ended group's tombstone answers retried requests; must exceed how long
 *     a client keeps retrying one request
 */
public record ProtocolConfig(
    long retryInitialMillis, long retryMaxMillis, int maxGroupSize, int uidBlock, long endedRetentionMillis) {
  public static final ProtocolConfig DEFAULTS = new ProtocolConfig(20, 1_000, 1_000, 1_000, 600_000);

  public ProtocolConfig {
    if (retryInitialMillis <= 0) {
      throw new IllegalArgumentException("retryInitialMillis must be positive: " + retryInitialMillis);
    }
    if (retryMaxMillis < retryInitialMillis) {
      throw new IllegalArgumentException("retryMaxMillis must be at least retryInitialMillis: " + retryMaxMillis);
    }
    if (maxGroupSize < 1) {
      throw new IllegalArgumentException("maxGroupSize must be at least 1: " + maxGroupSize);
    }
    if (uidBlock < 1) {
      throw new IllegalArgumentException("uidBlock must be at least 1: " + uidBlock);
    }
    if (endedRetentionMillis < 0) {
      throw new IllegalArgumentException("endedRetentionMillis must not be negative: " + endedRetentionMillis);
    }
  }
}
