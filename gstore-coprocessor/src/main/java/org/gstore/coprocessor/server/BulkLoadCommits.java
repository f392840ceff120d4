package org.gstore.coprocessor.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The bulk loads whose store files this server is committing, per region: from the moment G-Store admitted their
 * files ({@code preCommitStoreFile}, HBase's last hook before the files become readable) until the load ended
 * ({@code postBulkLoadHFile}, which HBase calls in a {@code finally} on the same handler thread, whether the load
 * succeeded or not).
 *
 * <p>A bulk load takes no row lock, so a row's fence alone cannot keep it out: a load admitted before a join fenced
 * one of its rows would commit its cells after the leader read the row. The join therefore fences first and then
 * waits until no load it could have missed is in flight in the row's region ({@link FenceUpdates}); a load marks
 * itself in flight first and then checks the fences. With a full fence between each side's write and read, one of
 * the two sees the other: the load is refused, or the join waits for its cells.
 */
final class BulkLoadCommits {
  /** Loads in flight by encoded region name; absent when none. */
  private final Map<String, Integer> inFlight = new ConcurrentHashMap<>();
  /** The region whose load this handler thread is committing, between {@link #enter} and {@link #exit}. */
  private final ThreadLocal<String> entered = new ThreadLocal<>();

  /**
   * Marks this thread's bulk load into {@code encodedRegion} in flight. HBase calls the commit hook once per column
   * family of the load; only the first call counts.
   */
  void enter(String encodedRegion) {
    if (entered.get() == null) {
      inFlight.merge(encodedRegion, 1, Integer::sum);
      entered.set(encodedRegion);
    }
  }

  /** Ends this thread's bulk load, if {@link #enter} marked one; otherwise (a load refused before) nothing. */
  void exit() {
    String region = entered.get();
    if (region != null) {
      entered.remove();
      inFlight.computeIfPresent(region, (r, n) -> n == 1 ? null : n - 1);
    }
  }

  /** Whether a bulk load is committing store files into {@code encodedRegion}. */
  boolean anyIn(String encodedRegion) {
    return inFlight.containsKey(encodedRegion);
  }
}
