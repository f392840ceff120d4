package org.gstore.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Predicate;

/**
 * A network the test drives by hand, one message at a time: messages wait in flight until the test delivers,
 * drops or duplicates them, so each scenario of the paper can be staged exactly.
 */
final class ScriptedNetwork {
  /** One message in flight. */
  record Packet(NodeId from, NodeId to, Message message) {
    @Override
    public String toString() {
      return from + "->" + to + " " + Describe.message(message);
    }
  }

  final SimCluster cluster;
  final List<Packet> inFlight = new ArrayList<>();
  final List<Reply> replies = new ArrayList<>();
  final List<Step> steps = new ArrayList<>();
  long now;
  private int requests;
  private boolean holdDeferred;
  private NodeId crashBeforeWriting;

  ScriptedNetwork(ProtocolNode.FollowerFactory followers, String... placement) {
    this(new ProtocolConfig(20, 1_000, 64, 1_000, 600_000), followers, placement);
  }

  /** @param placement {@code "row@node"} pairs: keys of table {@code t} and the node hosting each */
  ScriptedNetwork(ProtocolConfig config, ProtocolNode.FollowerFactory followers, String... placement) {
    List<NodeId> nodes = new ArrayList<>();
    for (String p : placement) {
      NodeId n = new NodeId(p.split("@")[1]);
      if (!nodes.contains(n)) {
        nodes.add(n);
      }
    }
    cluster = new SimCluster(config, followers, nodes);
    for (String p : placement) {
      cluster.place(key(p.split("@")[0]), new NodeId(p.split("@")[1]));
    }
    nodes.forEach(n -> cluster.start(n, now));
  }

  static Key key(String row) {
    return Key.of("t", row);
  }

  static NodeId node(String id) {
    return new NodeId(id);
  }

  ProtocolNode engine(String node) {
    return cluster.engine(node(node));
  }

  GroupId create(String name, String leader, CreateMode mode, String... members) {
    GroupId id = new GroupId(name, key(leader));
    List<Key> keys = new ArrayList<>();
    for (String m : members) {
      keys.add(key(m));
    }
    request(new ClientRequest.Create("req-" + (++requests), id, java.util.Set.copyOf(keys), mode));
    return id;
  }

  void delete(GroupId id) {
    request(new ClientRequest.Delete("req-" + (++requests), id));
  }

  Step request(ClientRequest r) {
    NodeId host = cluster.hostOf.get(r.group().leader());
    return output(host, cluster.engine(host).handle(r, now));
  }

  /** Delivers one message, as the only content of a datagram. */
  Step deliver(Packet p) {
    inFlight.remove(p);
    ProtocolNode engine = cluster.engine(p.to());
    if (engine == null) {
      return Step.NOTHING;
    }
    return output(p.to(), engine.receive(new Datagram(p.from(), p.to(), List.of(p.message()), List.of()), now));
  }

  /** Takes the in-flight messages matching {@code which} out of the network, to deliver or drop later. */
  List<Packet> take(Predicate<Message> which) {
    List<Packet> taken = new ArrayList<>();
    Iterator<Packet> it = inFlight.iterator();
    while (it.hasNext()) {
      Packet p = it.next();
      if (which.test(p.message())) {
        taken.add(p);
        it.remove();
      }
    }
    return taken;
  }

  /** Exactly one message matching {@code which} is in flight: take it. */
  Packet takeOne(Predicate<Message> which) {
    List<Packet> taken = take(which);
    assertThat(taken).as("in flight: " + inFlight).hasSize(1);
    return taken.get(0);
  }

  /** Delivers everything in flight, and whatever that produces, until the network is empty. */
  void deliverAll() {
    int budget = 10_000;
    while (!inFlight.isEmpty()) {
      assertThat(--budget).as("the network does not quiesce").isPositive();
      deliver(inFlight.get(0));
    }
  }

  /** Advances the clock and runs every node's due retries. */
  void advance(long millis) {
    now += millis;
    for (NodeId n : cluster.nodes()) {
      ProtocolNode e = cluster.engine(n);
      if (e != null) {
        output(n, e.tick(now));
      }
    }
  }

  /** Lets retries and deliveries run until nothing is left to do (or {@code maxMillis} pass). */
  void settle(long maxMillis) {
    long end = now + maxMillis;
    deliverAll();
    while (now < end && !quiet()) {
      advance(10);
      deliverAll();
    }
  }

  private boolean quiet() {
    return inFlight.isEmpty() && cluster.nodes().stream()
        .map(cluster::engine)
        .allMatch(e -> e == null || e.nextWakeup() == Long.MAX_VALUE);
  }

  void crash(String node) {
    cluster.crash(node(node));
  }

  void restart(String node) {
    cluster.start(node(node), now);
  }

  void move(String row, String to) {
    NodeId from = cluster.hostOf.get(key(row));
    output(from, cluster.move(key(row), node(to), now));
  }

  Reply lastReply() {
    assertThat(replies).isNotEmpty();
    return replies.get(replies.size() - 1);
  }

  /** The key's durable owner record (a key yielded after its JAA is still logged as JOINING). */
  OwnerRecord owner(String row) {
    return cluster.durable.owners.get(key(row));
  }

  /** The key's owner record in its host's memory (YIELDED once the JAA came), or null if free or host down. */
  OwnerRecord liveOwner(String row) {
    ProtocolNode engine = cluster.engine(cluster.hostOf.get(key(row)));
    return engine == null ? null : engine.owner(key(row)).orElse(null);
  }

  GroupRecord group(GroupId id) {
    return cluster.durable.groups.get(id);
  }

  /** The group has ended (a tombstone remains) or never existed. */
  boolean ended(GroupId id) {
    GroupRecord g = group(id);
    return g == null || g.phase() == GroupPhase.ENDED;
  }

  /**
   * From now on, nodes' deferred changes stay unwritten until a move or {@link SimCluster#writeDeferred}, so that a
   * crash can lose them; by default they are written at once.
   */
  void holdDeferredWrites() {
    holdDeferred = true;
  }

  /**
   * The node's next step with changes crashes it before any of them is durable: only the step's early datagrams
   * leave.
   */
  void crashBeforeWriting(String node) {
    crashBeforeWriting = node(node);
  }

  private Step output(NodeId node, Step step) {
    boolean early = !step.reservesUids();
    if (early) {
      enqueue(step.early());
    }
    if (node.equals(crashBeforeWriting) && !step.changes().isEmpty()) {
      crashBeforeWriting = null;
      cluster.crash(node);
      steps.add(step);
      return step;
    }
    cluster.persist(node, step);
    if (!holdDeferred) {
      cluster.writeDeferred(node);
    }
    for (NodeId n : cluster.nodes()) {
      assertThat(Invariants.consistency(cluster, n)).as("memory of %s after %s", n, step).isEmpty();
    }
    steps.add(step);
    List<Datagram> datagrams = early ? step.datagrams() : step.withoutEarly().datagrams();
    enqueue(datagrams);
    for (Datagram d : datagrams) {
      for (Key k : d.notMine()) {
        ProtocolNode e = cluster.engine(d.to());
        if (e != null) {
          output(d.to(), e.receive(new Datagram(d.from(), d.to(), List.of(), List.of(k)), now));
        }
      }
    }
    replies.addAll(step.replies());
    assertThat(Invariants.safety(cluster)).as("safety after %s", step).isEmpty();
    return step;
  }

  private void enqueue(List<Datagram> datagrams) {
    for (Datagram d : datagrams) {
      for (Message m : d.messages()) {
        inFlight.add(new Packet(d.from(), d.to(), m));
      }
    }
  }
}
