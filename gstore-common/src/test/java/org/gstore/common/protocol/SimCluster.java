package org.gstore.common.protocol;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Nodes, the placement of keys on them, and their durable state: the world the protocol runs in, without a network.
 * Crashing a node drops its memory; starting it rebuilds its engine from durable state. Moving a key unloads its
 * state at the old host and loads it at the new one, like a region move; other nodes' cached locations go stale.
 */
final class SimCluster {
  private final ProtocolConfig config;
  private final ProtocolNode.FollowerFactory followers;
  final DurableState durable = new DurableState();
  final Map<Key, NodeId> hostOf = new TreeMap<>();
  private final Map<NodeId, ProtocolNode> engines = new TreeMap<>();
  private final Map<NodeId, Map<Key, NodeId>> locationCaches = new HashMap<>();
  /** Each node's deferred changes its writer has not written yet, by target. */
  private final Map<NodeId, Map<Object, StateChange>> unwritten = new HashMap<>();

  SimCluster(ProtocolConfig config, ProtocolNode.FollowerFactory followers, List<NodeId> nodes) {
    this.config = config;
    this.followers = followers;
    for (NodeId n : nodes) {
      engines.put(n, null);
      locationCaches.put(n, new HashMap<>());
      unwritten.put(n, new LinkedHashMap<>());
    }
  }

  List<NodeId> nodes() {
    return new ArrayList<>(engines.keySet());
  }

  /** The node's engine, or {@code null} while it is down. */
  ProtocolNode engine(NodeId n) {
    return engines.get(n);
  }

  boolean isUp(NodeId n) {
    return engines.get(n) != null;
  }

  void place(Key k, NodeId n) {
    hostOf.put(k, n);
  }

  /** Starts (or restarts) a node from durable state: it hosts the same keys, as a reopened region server would. */
  void start(NodeId n, long now) {
    ProtocolNode engine = new ProtocolNode(n, config, k -> n.equals(hostOf.get(k)), locator(n),
        durable.reservedUids.getOrDefault(n, 0L), followers);
    engines.put(n, engine);
    engine.load(
        durable.groups.values().stream().filter(g -> n.equals(hostOf.get(g.group().leader()))).toList(),
        durable.owners.values().stream().filter(o -> n.equals(hostOf.get(o.key()))).toList(),
        now);
  }

  /** The node loses its memory and the deferred changes it had not written; its durable state stays. */
  void crash(NodeId n) {
    engines.put(n, null);
    unwritten.get(n).clear();
    locationCaches.get(n).clear();
  }

  /** Moves {@code k} to {@code to}; returns the replies the old host owes its waiting clients. */
  Step move(Key k, NodeId to, long now) {
    NodeId from = hostOf.get(k);
    Step unloaded = Step.NOTHING;
    ProtocolNode old = engines.get(from);
    hostOf.put(k, to);
    if (old != null) {
      unloaded = old.unload(k::equals);
      writeDeferred(from); // a closing region waits until its host's decisions are durable
    }
    ProtocolNode target = engines.get(to);
    if (target != null) {
      target.load(
          durable.groups.values().stream().filter(g -> g.group().leader().equals(k)).toList(),
          durable.owners.containsKey(k) ? List.of(durable.owners.get(k)) : List.of(),
          now);
    }
    return unloaded;
  }

  /**
   * Makes {@code node}'s step durable as its writer would: the step's changes before its messages leave (each
   * replacing an unwritten deferred change to its target); the step's deferred changes wait for
   * {@link #writeDeferred} or a move of its keys, and a crash loses them. So a node's later changes to other
   * targets may be durable before its earlier deferred ones, as when the writer carries those to a later batch.
   */
  void persist(NodeId node, Step step) {
    Map<Object, StateChange> pending = unwritten.get(node);
    step.changes().forEach(c -> pending.remove(c.target()));
    durable.apply(step.changes());
    step.deferred().forEach(c -> pending.put(c.target(), c));
  }

  /**
   * The node crashes while writing {@code step}: the phases of its changes before a random one are durable, and a
   * random subset of that one ({@link WriteOrder}); nothing of the step leaves the node but its early datagrams.
   */
  void crashWhileWriting(NodeId node, Step step, Random random) {
    List<List<StateChange>> phases = WriteOrder.phases(step.changes());
    int torn = random.nextInt(phases.size());
    for (int i = 0; i < torn; i++) {
      durable.apply(phases.get(i));
    }
    durable.apply(phases.get(torn).stream().filter(c -> random.nextBoolean()).toList());
    crash(node);
  }

  /** The node's writer catches up with its deferred changes. */
  void writeDeferred(NodeId node) {
    durable.apply(List.copyOf(unwritten.get(node).values()));
    unwritten.get(node).clear();
  }

  /** Durable state as it will be once {@code node}'s deferred changes are written: what its memory must match. */
  DurableState intended(NodeId node) {
    if (unwritten.get(node).isEmpty()) {
      return durable;
    }
    DurableState d = durable.copy();
    d.apply(List.copyOf(unwritten.get(node).values()));
    return d;
  }

  private KeyLocator locator(NodeId n) {
    Map<Key, NodeId> cache = locationCaches.get(n);
    return new KeyLocator() {
      @Override
      public NodeId locate(Key key) {
        return cache.computeIfAbsent(key, hostOf::get);
      }

      @Override
      public void invalidate(Key key) {
        cache.remove(key);
      }
    };
  }
}
