package org.gstore.recovery;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.gstore.common.protocol.GroupRef;

/**
 * The commit timestamps of the commits a leader's shipper holds, per group ({@link ShipmentLedger}): how many, and
 * the oldest, below which every commit of the group it was handed is persisted ({@code PersistedMarks}). Not
 * thread-safe: the ledger guards it.
 */
final class HeldCommits {
  /** Per group, each held commit timestamp with how many held commits have it. */
  private final Map<GroupRef, TreeMap<Long, Integer>> byGroup = new HashMap<>();
  private int total;

  void add(Shipment s) {
    byGroup.computeIfAbsent(s.group(), g -> new TreeMap<>()).merge(s.commitTs(), 1, Integer::sum);
    total++;
  }

  /** Drops one held commit like {@code s}; nothing if none is held. */
  void remove(Shipment s) {
    TreeMap<Long, Integer> held = byGroup.get(s.group());
    Integer n = held == null ? null : held.get(s.commitTs());
    if (n == null) {
      return;
    }
    if (n == 1) {
      held.remove(s.commitTs());
      if (held.isEmpty()) {
        byGroup.remove(s.group());
      }
    } else {
      held.put(s.commitTs(), n - 1);
    }
    total--;
  }

  int count() {
    return total;
  }

  int count(GroupRef group) {
    TreeMap<Long, Integer> held = byGroup.get(group);
    return held == null ? 0 : held.values().stream().mapToInt(Integer::intValue).sum();
  }

  OptionalLong oldest(GroupRef group) {
    TreeMap<Long, Integer> held = byGroup.get(group);
    return held == null ? OptionalLong.empty() : OptionalLong.of(held.firstKey());
  }
}
