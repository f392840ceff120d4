package org.gstore.common.protocol;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.gstore.common.protocol.log.LoggedChange;

/**
 * Protocol state shared by all nodes, whose records follow keys to whichever node hosts them: G-Store's HBase state
 * tables, or the state the protocol made durable in tables and logs together. A row written through the protocol
 * log keeps its version ({@link LoggedChange}), the cell timestamp in HBase, also once released.
 */
final class DurableState {
  final Map<GroupId, GroupRecord> groups = new LinkedHashMap<>();
  final Map<Key, OwnerRecord> owners = new LinkedHashMap<>();
  final Map<NodeId, Long> reservedUids = new HashMap<>();
  /** Each row's version, released rows' included (their tombstones). */
  final Map<Object, Long> versions = new HashMap<>();

  DurableState copy() {
    DurableState d = new DurableState();
    d.groups.putAll(groups);
    d.owners.putAll(owners);
    d.reservedUids.putAll(reservedUids);
    d.versions.putAll(versions);
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

  /**
   * Writes logged changes: a row takes one only if it is newer, unless {@code versioned} is false (a planted
   * defect: cells written without versions, so the last write wins, however old).
   */
  void apply(List<LoggedChange> changes, boolean versioned) {
    for (LoggedChange c : changes) {
      if (!versioned || c.supersedes(version(c.target()))) {
        apply(List.of(c.change()));
        versions.put(c.target(), c.version());
      }
    }
  }

  long version(Object target) {
    return versions.getOrDefault(target, 0L);
  }

  /** How this state's row {@code target} differs from {@code other}'s, or null if it does not. */
  String difference(DurableState other, Object target) {
    Object mine = value(target);
    Object theirs = other.value(target);
    return Objects.equals(mine, theirs) ? null : target + " is " + mine + " here but " + theirs + " there";
  }

  private Object value(Object target) {
    if (target instanceof GroupId g) {
      return groups.get(g);
    }
    return target instanceof Key k ? owners.get(k) : reservedUids.get((NodeId) target);
  }

  /** Every row either holds, in any of the three tables, tombstones included. */
  java.util.Set<Object> rows(DurableState other) {
    java.util.Set<Object> all = new java.util.LinkedHashSet<>();
    for (DurableState d : List.of(this, other)) {
      all.addAll(d.versions.keySet());
      all.addAll(d.groups.keySet());
      all.addAll(d.owners.keySet());
      all.addAll(d.reservedUids.keySet());
    }
    return all;
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
