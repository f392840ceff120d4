package org.gstore.common.protocol;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What survives crashes in the simulation: like G-Store's HBase system tables, one store shared by all nodes,
 * whose records follow keys to whichever node hosts them.
 */
final class DurableState {
  final Map<GroupId, GroupRecord> groups = new LinkedHashMap<>();
  final Map<Key, OwnerRecord> owners = new LinkedHashMap<>();
  final Map<NodeId, Long> reservedUids = new HashMap<>();

  DurableState copy() {
    DurableState d = new DurableState();
    d.groups.putAll(groups);
    d.owners.putAll(owners);
    d.reservedUids.putAll(reservedUids);
    return d;
  }

  void apply(List<StateChange> changes) {
    for (StateChange c : changes) {
      if (c instanceof StateChange.PutGroup p) {
        groups.put(p.record().id(), p.record());
      } else if (c instanceof StateChange.RemoveGroup r) {
        groups.remove(r.group().id());
      } else if (c instanceof StateChange.PutOwner p) {
        owners.put(p.record().key(), p.record());
      } else if (c instanceof StateChange.RemoveOwner r) {
        owners.remove(r.key());
      } else if (c instanceof StateChange.ReserveUids u) {
        reservedUids.merge(u.node(), u.upTo(), Math::max);
      }
    }
  }

  /** Whether {@code ref} is a group that has not ended (its tombstone does not count). */
  boolean exists(GroupRef ref) {
    GroupRecord g = groups.get(ref.id());
    return g != null && g.group().equals(ref) && g.phase() != GroupPhase.ENDED;
  }

  /** Groups that have not ended. */
  long liveGroups() {
    return groups.values().stream().filter(g -> g.phase() != GroupPhase.ENDED).count();
  }
}
