package org.gstore.common.protocol;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/** The safety properties of the Key Grouping protocol, checked against the whole simulated cluster. */
final class Invariants {
  private Invariants() {}

  /** Violations of safety in the durable state of the cluster: empty when all is well. */
  static List<String> safety(SimCluster cluster) {
    List<String> v = new ArrayList<>();
    DurableState d = cluster.durable;
    Map<Key, GroupRef> claimedBy = new HashMap<>();
    for (GroupRecord g : d.groups.values()) {
      if (g.phase() == GroupPhase.DELETING || g.phase() == GroupPhase.ENDED) {
        continue;
      }
      for (Key k : g.members(MemberState.Status.JOINED)) {
        // (1) a key the leader counts as joined is durably yielded (joining or yielded) to that very group
        OwnerRecord o = d.owners.get(k);
        if (o == null || !o.group().equals(g.group())) {
          v.add("leader of " + g.group() + " counts " + k + " as joined, but its follower record is " + o);
        }
        // (1) and never by two groups
        GroupRef other = claimedBy.put(k, g.group());
        if (other != null) {
          v.add(k + " is joined to two groups: " + other + " and " + g.group());
        }
      }
      // (2) an active group never misses a member it needs
      if (g.phase() == GroupPhase.ACTIVE) {
        if (!g.members().get(g.group().leader()).is(MemberState.Status.JOINED)) {
          v.add("active group " + g.group() + " has not joined its leader key");
        }
        if (g.mode() == CreateMode.ATOMIC && !g.members(MemberState.Status.JOINED).equals(g.members().keySet())) {
          v.add("atomic group " + g.group() + " is active with members missing: " + g.members());
        }
        if (!g.members(MemberState.Status.PENDING).isEmpty()) {
          v.add("active group " + g.group() + " has pending members");
        }
      }
    }
    return v;
  }

  /**
   * A node's memory agrees with durable state for the keys it hosts and holds nothing else: what it would reload
   * after a crash is what it acts on now, once its writer has written the deferred changes it holds (a crash
   * before that may lose them: the engine defers only what a restart repairs). Checked for the node that just
   * took a step.
   */
  static List<String> consistency(SimCluster cluster, NodeId n) {
    List<String> v = new ArrayList<>();
    DurableState d = cluster.intended(n);
    ProtocolNode e = cluster.engine(n);
    if (e == null) {
      return v;
    }
    for (GroupRecord g : e.groups()) {
      if (!cluster.hosts(n, g.group().leader())) {
        v.add(n + " holds group " + g.group() + " whose leader key it does not host");
      } else if (!g.equals(d.groups.get(g.id()))) {
        v.add(n + " has " + g + " in memory but durable state is " + d.groups.get(g.id()));
      }
    }
    for (OwnerRecord o : e.owners()) {
      if (!cluster.hosts(n, o.key())) {
        v.add(n + " holds owner record of " + o.key() + " which it does not host");
      } else if (!o.equals(d.owners.get(o.key()))) {
        v.add(n + " has " + o + " in memory but durable state is " + d.owners.get(o.key()));
      }
    }
    // the index of groups not ended holds exactly those, each once, as their records say (not just their names)
    List<String> unended = e.unendedGroups().stream().map(GroupRecord::toString).sorted().toList();
    List<String> notEnded = e.groups().stream().filter(g -> e.group(g.id()).orElseThrow().phase() != GroupPhase.ENDED)
        .map(GroupRecord::toString).sorted().toList();
    if (!unended.equals(notEnded)) {
      v.add(n + " indexes " + unended + " as not ended, but its groups not ended are " + notEnded);
    }
    long hostedGroups = d.groups.values().stream().filter(g -> cluster.hosts(n, g.group().leader())).count();
    long hostedOwners = d.owners.keySet().stream().filter(k -> cluster.hosts(n, k)).count();
    if (hostedGroups != e.groups().size() || hostedOwners != e.owners().size()) {
      v.add(n + " has not loaded all durable state of the keys it hosts");
    }
    return v;
  }

  /** Keys yielded (or joining) to a group that no longer exists: the paper's ghost groups. */
  static List<OwnerRecord> ghosts(SimCluster cluster) {
    List<OwnerRecord> ghosts = new ArrayList<>();
    for (OwnerRecord o : cluster.durable.owners.values()) {
      if (!cluster.durable.exists(o.group())) {
        ghosts.add(o);
      }
    }
    return ghosts;
  }

  /** Describes the durable state left over, for failure reports. */
  static String describe(SimCluster cluster) {
    StringBuilder sb = new StringBuilder();
    sb.append("groups:\n");
    cluster.durable.groups.values().forEach(g -> sb.append("  ").append(g).append('\n'));
    sb.append("owners:\n");
    cluster.durable.owners.values().forEach(o -> sb.append("  ").append(o).append('\n'));
    sb.append("down nodes: ").append(new TreeSet<>(cluster.nodes().stream()
        .filter(n -> !cluster.isUp(n)).map(Objects::toString).toList())).append('\n');
    return sb.toString();
  }
}
