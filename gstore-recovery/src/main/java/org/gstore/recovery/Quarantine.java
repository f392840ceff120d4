package org.gstore.recovery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.gstore.common.protocol.GroupRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commits HBase refused for good, and those held behind them: the {@link ShipmentLedger}'s quarantine, kept
 * apart from its shipping bookkeeping. Not thread-safe: the ledger calls it under its own lock, and every commit in
 * it is also held by the ledger (its group's count and the WAL keep it).
 */
final class Quarantine {
  private static final Logger LOG = LoggerFactory.getLogger(ShipmentLedger.class); // its operators know the ledger
  /** Commits HBase refused for good (or held behind one), oldest first: shipped again now and then. */
  private final LinkedHashSet<Shipment> quarantined = new LinkedHashSet<>();
  /**
   * Quarantined commits shipped again and not landed yet: still quarantined for the alerts (HBase does not have
   * them), and not a shipping lag (they are not waiting behind anything).
   */
  private final LinkedHashSet<Shipment> retrying = new LinkedHashSet<>();
  /**
   * Commits held behind a quarantined one before HBase was sent them: they have no outcome row yet, so a lookup
   * must not take them for shipped.
   */
  private final Set<Shipment> heldUnsent = new HashSet<>();
  /** Why HBase refused each quarantined commit, as it said the last time. */
  private final Map<Shipment, String> refusedBecause = new HashMap<>();
  private long lastRetry = Long.MIN_VALUE;
  private long retryMillis = ShipmentLedger.DEFAULT_QUARANTINE_RETRY_MILLIS;
  private long refusals;

  long retryMillis() {
    return retryMillis;
  }

  void retryMillis(long millis) {
    if (millis <= 0) {
      throw new IllegalArgumentException("a quarantine retry period must be positive, not " + millis);
    }
    retryMillis = millis;
  }

  /** Whether nothing is quarantined, not even a commit shipped again and not landed yet. */
  boolean isEmpty() {
    return quarantined.isEmpty() && retrying.isEmpty();
  }

  /** HBase refused {@code s} for good, saying {@code because}. */
  void refused(Shipment s, String because) {
    LOG.error("G-Store QUARANTINED a commit of group {} (commit timestamp {}, WAL stream {} record {}): HBase"
        + " refuses its writes for good ({}). It stays in the WAL and is shipped again every {} s; the group takes no"
        + " commit, release or region move until it lands. Fix the cause, see docs/operations.md, \"Quarantined"
        + " commits\"", s.group().id(), s.commitTs(), s.position().stream(), s.position().seq(), because,
        retryMillis / 1000);
    quarantined.add(s);
    refusedBecause.put(s, because);
    heldUnsent.remove(s); // sent: its outcome row went first
    retrying.remove(s);
    refusals++;
  }

  /**
   * Quarantines {@code s} behind an earlier commit of its group that HBase does not have, unless that one lands with
   * it ({@code landingWith}). Returns the commit it waits behind, or null if none: then nothing changed.
   */
  Shipment holdBehindEarlier(Shipment s, Collection<Shipment> landingWith) {
    Shipment blocker = blocker(s, landingWith);
    if (blocker == null) {
      return null;
    }
    if (!refusedBecause.containsKey(s)) { // held for the first time (logged once, not at every retry round)
      heldUnsent.add(s); // never sent
      LOG.warn("G-Store holds a commit of group {} (commit timestamp {}) behind its quarantined commit {}",
          s.group().id(), s.commitTs(), blocker.commitTs());
    }
    quarantined.add(s);
    refusedBecause.put(s, "behind its group's quarantined commit " + blocker.commitTs() + ": "
        + refusedBecause.getOrDefault(blocker, "shipped again"));
    retrying.remove(s);
    return blocker;
  }

  /** The earlier commit of {@code s}'s group that HBase does not have and that does not land with it, or null. */
  Shipment blocker(Shipment s, Collection<Shipment> landingWith) {
    Shipment blocker = earlierUnlanded(s, quarantined, landingWith);
    return blocker != null ? blocker : earlierUnlanded(s, retrying, landingWith);
  }

  private static Shipment earlierUnlanded(Shipment s, Collection<Shipment> among, Collection<Shipment> landingWith) {
    for (Shipment q : among) {
      if (q.group().equals(s.group()) && q.commitTs() < s.commitTs() && !landingWith.contains(q)) {
        return q;
      }
    }
    return null;
  }

  /** {@code s} landed in HBase: out of quarantine, if it was in. */
  void landed(Shipment s) {
    retrying.remove(s);
    refusedBecause.remove(s);
    heldUnsent.remove(s);
  }

  /**
   * The quarantined commits to ship again now, in commit order, if {@link #retryMillis} passed since the last time
   * (none otherwise); they count as shipped again, not landed, until HBase takes them.
   */
  List<Shipment> dueForRetry(long now) {
    if (quarantined.isEmpty() || (lastRetry != Long.MIN_VALUE && now - lastRetry < retryMillis)) {
      return List.of();
    }
    lastRetry = now;
    List<Shipment> again = new ArrayList<>(quarantined);
    // in commit order, whatever order they were quarantined in: a commit shipped before an earlier one of its group
    // that HBase still refuses would land ahead of it
    again.sort(Comparator.comparingLong(Shipment::commitTs));
    quarantined.clear();
    retrying.addAll(again);
    return again;
  }

  boolean contains(Shipment s) {
    return quarantined.contains(s);
  }

  boolean isRetrying(Shipment s) {
    return retrying.contains(s);
  }

  /** Whether a commit of {@code group} stamped at or before {@code commitTs} is held behind another, never sent. */
  boolean holdsUnsent(GroupRef group, long commitTs) {
    return heldUnsent.stream().anyMatch(s -> s.group().equals(group) && s.commitTs() <= commitTs);
  }

  int count() {
    return quarantined.size() + retrying.size();
  }

  Optional<String> cause(GroupRef group) {
    return refusedBecause.entrySet().stream().filter(e -> e.getKey().group().equals(group))
        .map(Map.Entry::getValue).findFirst();
  }

  long refusals() {
    return refusals;
  }
}
