package org.gstore.recovery;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import org.gstore.common.protocol.GroupRef;

/**
 * The commits sent back to be shipped again (a distrusted acknowledgement, a death, out of quarantine) and not
 * landed since, per group in commit order: the {@link ShipmentLedger} numbers no later commit of a group before
 * them. Not thread-safe: the ledger calls it under its own lock.
 */
final class SentBack {
  static final Comparator<Shipment> IN_COMMIT_ORDER =
      Comparator.comparingLong(Shipment::commitTs).thenComparing(Shipment::txnId);

  private final Map<GroupRef, TreeSet<Shipment>> byGroup = new HashMap<>();

  void add(Shipment s) {
    byGroup.computeIfAbsent(s.group(), g -> new TreeSet<>(IN_COMMIT_ORDER)).add(s);
  }

  /** {@code s} landed, or left to be held otherwise (quarantined). */
  void remove(Shipment s) {
    TreeSet<Shipment> ofGroup = byGroup.get(s.group());
    if (ofGroup != null && ofGroup.remove(s) && ofGroup.isEmpty()) {
      byGroup.remove(s.group());
    }
  }

  /** Whether an earlier commit of {@code s}'s group was sent back and has not landed since. */
  boolean holdsEarlierThan(Shipment s) {
    TreeSet<Shipment> ofGroup = byGroup.get(s.group());
    return ofGroup != null && ofGroup.first().commitTs() < s.commitTs();
  }
}
