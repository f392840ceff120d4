package org.gstore.common.protocol;

import java.util.concurrent.TimeUnit;

/**
 * The leases a group may have: none (0), or from one second to seven days. The client refuses any other when the
 * lease is set (a group spec, or {@code gstore.group.lease.ms} when the client is made), and the leader refuses it
 * again at create, for clients that did not check.
 */
public final class LeaseBounds {
  public static final long MIN_MILLIS = 1_000;
  public static final long MAX_MILLIS = TimeUnit.DAYS.toMillis(7);

  private LeaseBounds() {}

  /** Why {@code millis} is not a lease a group may have, or null if it is. */
  public static String problem(long millis) {
    if (millis == 0 || millis >= MIN_MILLIS && millis <= MAX_MILLIS) {
      return null;
    }
    return "a lease of " + millis + " ms is outside " + MIN_MILLIS + " ms to " + MAX_MILLIS + " ms (0: no lease)";
  }
}
