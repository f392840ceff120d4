package org.gstore.coprocessor.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.Delete;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Message;
import org.gstore.common.protocol.NodeId;

/**
 * Holds back the releases ({@code D}) of deleting groups whose last commits are not yet durable in HBase, so that
 * a delete's {@code DELETING} record can be written meanwhile: a row must not be released while a commit of its
 * group is missing from HBase, or the next group to take it would load a stale row.
 *
 * <p>To the protocol a held {@code D} is a datagram delayed in the network, which it tolerates by design: nothing
 * it decides depends on when a {@code D} arrives. Only the latest copy of each held {@code D} is kept (the leader
 * retries them), addressed where its latest copy was going, and all of them leave when the group's gate opens.
 */
final class ReleaseGate {
  /** Per held group, its held releases and the server each was last sent to. */
  private final Map<GroupRef, Map<Delete, NodeId>> held = new HashMap<>();

  /** Holds {@code group}'s releases from now until {@link #open}. */
  synchronized void hold(GroupRef group) {
    held.computeIfAbsent(group, g -> new LinkedHashMap<>());
  }

  /** {@code d} without the releases of held groups, which are kept; null if nothing is left to send. */
  synchronized Datagram pass(Datagram d) {
    if (held.isEmpty()) {
      return d;
    }
    List<Message> passing = new ArrayList<>(d.messages().size());
    for (Message m : d.messages()) {
      Map<Delete, NodeId> heldOfGroup = m instanceof Delete release ? held.get(release.group()) : null;
      if (heldOfGroup == null) {
        passing.add(m);
      } else {
        heldOfGroup.remove(m); // re-inserted: the latest destination, and in the order of the latest retries
        heldOfGroup.put((Delete) m, d.to());
      }
    }
    if (passing.size() == d.messages().size()) {
      return d;
    }
    return passing.isEmpty() && d.notMine().isEmpty() ? null : new Datagram(d.from(), d.to(), passing, d.notMine());
  }

  /** Stops holding {@code group}'s releases; returns those held, one datagram per server, to send now. */
  synchronized List<Datagram> open(GroupRef group, NodeId self) {
    Map<Delete, NodeId> released = held.remove(group);
    if (released == null || released.isEmpty()) {
      return List.of();
    }
    Map<NodeId, List<Message>> byServer = new LinkedHashMap<>();
    released.forEach((d, to) -> byServer.computeIfAbsent(to, t -> new ArrayList<>()).add(d));
    List<Datagram> out = new ArrayList<>(byServer.size());
    byServer.forEach((to, messages) -> out.add(new Datagram(self, to, messages, List.of())));
    return out;
  }

  /** How many groups' releases are held (a gauge). */
  synchronized int heldGroups() {
    return held.size();
  }
}
