package org.gstore.coprocessor.txn;

import java.io.IOException;
import org.apache.hadoop.hbase.RegionTooBusyException;

/**
 * What a transaction's earlier attempts came to, as far as the holder of its group's commit lock can tell: an
 * outcome, none ({@code outcome} null), or that the durable record must be read first ({@link #needsLookup}), for
 * the commits forgotten up to {@code lookUpThrough}.
 */
record EarlierOutcome(CommitOutcome outcome, long lookUpThrough) {
  static final long NO_LOOKUP = -1;

  boolean needsLookup() {
    return lookUpThrough != NO_LOOKUP;
  }

  /**
   * The outcome the transaction already has: from the cache's memory when that tells (nearly always: the commit's
   * first attempt, or a retry to the same leader), otherwise from the durable record, read off the lock by
   * {@link OutcomeLookups} once every commit this cache forgot and that might be this one is shipped. While a lookup
   * ({@code lookedUp}) runs, no other attempt of the transaction may commit ({@link GroupCache#lookingUp}), so its
   * answer holds however many outcomes are forgotten meanwhile: a commit of the transaction made before it began is
   * in memory or among those it waited for. A group being deleted answers from memory only: its commits are still
   * being shipped, so the record may lack one; its callers retry until the delete is done, when the record has them
   * all. With the commit lock held.
   *
   * @param lookedUp the answer of the lookup this caller ran since it last held the lock, or null
   */
  static EarlierOutcome of(GroupCache cache, String txnId, long seenIncarnation, long seenTs,
      EarlierOutcome lookedUp) throws IOException {
    CommitOutcome remembered = cache.recentOutcome(txnId);
    if (remembered != null || cache.remembersEveryCommitAfter(seenIncarnation, seenTs)) {
      return new EarlierOutcome(remembered, NO_LOOKUP);
    }
    if (cache.closed() == GroupCache.Closed.RELEASED) {
      throw new RegionTooBusyException("group " + cache.group.id() + " is being deleted; retry to learn whether"
          + " this commit took effect before");
    }
    if (lookedUp == null) {
      return new EarlierOutcome(null, cache.forgottenUpTo());
    }
    if (lookedUp.outcome() != null) {
      cache.remember(txnId, lookedUp.outcome());
    }
    return new EarlierOutcome(lookedUp.outcome(), NO_LOOKUP);
  }
}
