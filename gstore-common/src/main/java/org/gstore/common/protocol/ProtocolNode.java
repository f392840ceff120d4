package org.gstore.common.protocol;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * One node's Key Grouping protocol engine: the leader side for groups led by keys it hosts and the follower side for
 * the keys it hosts, behind one deterministic, single-threaded interface.
 *
 * <p>Every input (a client request, a datagram, a timer tick) comes with the current time and returns a
 * {@link Step}: durable changes to make first, then datagrams to send, one per destination node, and client
 * replies. No threads, sockets, clocks or storage inside: the coprocessor adapts this to UDP, timers and HBase
 * tables, and the simulator to a faulty virtual network.
 *
 * <p>Messages are addressed to keys. A message for a key this node does not host is answered by listing the key
 * as "not mine" in the reply datagram; the sender forgets that key's location and its next retry re-resolves it.
 */
public final class ProtocolNode {
  /** Creates the follower half; tests substitute one with a planted bug. */
  interface FollowerFactory {
    Follower create(ProtocolConfig config, RetryTimeout timeout, UidSource uids, ProtocolStats stats);
  }

  /** Chains of local messages are at most J, JA, JAA long. */
  private static final int MAX_LOCAL_ROUNDS = 4;

  private final NodeId self;
  private final Predicate<Key> hosts;
  private final KeyLocator locator;
  private final ProtocolStats stats = new ProtocolStats();
  private final RetryTimeout retryTimeout;
  private final Leader leader;
  private final Follower follower;

  /**
   * @param self this node's id, stable across restarts
   * @param hosts whether this node currently hosts a key (a live view: it changes as regions move)
   * @param locator where other keys live
   * @param reservedUids the highest {@link Uid} sequence number durably reserved by an earlier life of this node
   *     ({@link StateChange.ReserveUids}), 0 for a new node
   */
  public ProtocolNode(
      NodeId self, ProtocolConfig config, Predicate<Key> hosts, KeyLocator locator, long reservedUids) {
    this(self, config, hosts, locator, reservedUids, Follower::new);
  }

  ProtocolNode(NodeId self, ProtocolConfig config, Predicate<Key> hosts, KeyLocator locator, long reservedUids,
      FollowerFactory followers) {
    this.self = self;
    this.hosts = hosts;
    this.locator = locator;
    UidSource uids = new UidSource(self, config.uidBlock(), reservedUids);
    this.retryTimeout = new RetryTimeout(config);
    this.leader = new Leader(config, retryTimeout, uids, stats);
    this.follower = followers.create(config, retryTimeout, uids, stats);
  }

  public NodeId id() {
    return self;
  }

  public Step handle(ClientRequest request, long now) {
    Effects fx = new Effects();
    if (!hosts.test(request.group().leader())) {
      String why = "this server does not host the leader key " + request.group().leader();
      fx.reply(request instanceof ClientRequest.Create
          ? new Reply.Create(request.requestId(), Reply.Outcome.NOT_LEADER, null, why)
          : new Reply.Delete(request.requestId(), Reply.Outcome.NOT_LEADER, why));
    } else if (request instanceof ClientRequest.Create c) {
      leader.create(c, now, fx);
    } else {
      leader.delete((ClientRequest.Delete) request, now, fx);
    }
    deliverLocally(fx, now);
    return finish(fx, List.of(), null);
  }

  public Step receive(Datagram datagram, long now) {
    Effects fx = new Effects();
    List<Key> notMine = new ArrayList<>();
    for (Key k : datagram.notMine()) {
      stats.notMineReceived++;
      locator.invalidate(k);
    }
    Message.Visitor<Void> dispatch = dispatcher(fx, now);
    for (Message m : datagram.messages()) {
      if (hosts.test(m.destination())) {
        m.accept(dispatch);
      } else {
        notMine.add(m.destination());
      }
    }
    deliverLocally(fx, now);
    return finish(fx, notMine, datagram.from());
  }

  /** Hands each message to the leader or follower half, whose effects go into {@code fx}. */
  private Message.Visitor<Void> dispatcher(Effects fx, long now) {
    return new Message.Visitor<>() {
      @Override
      public Void join(Join j) {
        follower.onJoin(j, now, fx);
        return null;
      }

      @Override
      public Void joinAck(JoinAck ja) {
        leader.onJoinAck(ja, now, fx);
        return null;
      }

      @Override
      public Void joinAckAck(JoinAckAck jaa) {
        follower.onJoinAckAck(jaa, now, fx);
        return null;
      }

      @Override
      public Void delete(Delete d) {
        follower.onDelete(d, fx);
        return null;
      }

      @Override
      public Void deleteAck(DeleteAck da) {
        leader.onDeleteAck(da, now, fx);
        return null;
      }
    };
  }

  /** Retries whatever is due. Call at {@link #nextWakeup()} (calling earlier or more often is harmless). */
  public Step tick(long now) {
    Effects fx = new Effects();
    leader.tick(now, fx);
    follower.tick(now, fx);
    deliverLocally(fx, now);
    return finish(fx, List.of(), null);
  }

  /** When the next retry is due, or {@link Long#MAX_VALUE} if nothing waits. */
  public long nextWakeup() {
    return Math.min(leader.nextWakeup(), follower.nextWakeup());
  }

  /**
   * Takes over the durable state of keys this node now hosts (after a restart, or when their region opened here).
   * Interrupted creates, deletes and joins resume at the next tick.
   */
  public void load(Collection<GroupRecord> groups, Collection<OwnerRecord> owners, long now) {
    for (GroupRecord g : groups) {
      requireHosted(g.group().leader());
      leader.load(g, now);
    }
    for (OwnerRecord o : owners) {
      requireHosted(o.key());
      follower.load(o, now);
    }
  }

  /**
   * Forgets the state of keys this node no longer hosts (their region closed or moved). Their durable state stays
   * where it is for the next host to load; clients waiting on groups they lead are told to retry.
   */
  public Step unload(Predicate<Key> gone) {
    Effects fx = new Effects();
    leader.unload(gone, fx);
    follower.unload(gone);
    return finish(fx, List.of(), null);
  }

  public Optional<GroupRecord> group(GroupId id) {
    return leader.group(id);
  }

  public Collection<GroupRecord> groups() {
    return leader.groups();
  }

  /** The records of the groups this node leads that have not ended (no tombstone), as last logged. */
  public Collection<GroupRecord> unendedGroups() {
    return leader.unendedGroups();
  }

  /** How many groups (tombstones included) this node leads; cheap. */
  public int groupCount() {
    return leader.size();
  }

  /** The live owner record of a key this node hosts ({@code YIELDED} once its JAA came), if it is not free. */
  public Optional<OwnerRecord> owner(Key key) {
    return follower.owner(key);
  }

  /** The owner records of the keys this node hosts, as last logged (a yielded key is logged {@code JOINING}). */
  public Collection<OwnerRecord> owners() {
    return follower.owners();
  }

  public ProtocolStats stats() {
    return stats;
  }

  /** The current delay before a protocol message is first sent again ({@link RetryTimeout}). */
  public long retryTimeoutMillis() {
    return retryTimeout.millis();
  }

  private void requireHosted(Key key) {
    if (!hosts.test(key)) {
      throw new IllegalArgumentException(self + " cannot load state of " + key + ": it does not host that key");
    }
  }

  /**
   * Completes a step: collects the writes, and batches the messages into one datagram per destination node (early
   * ones apart).
   */
  private Step finish(Effects fx, List<Key> notMine, NodeId replyTo) {
    leader.flush(fx);
    Map<NodeId, List<Message>> byNode = route(fx.messages());
    List<Datagram> datagrams = new ArrayList<>();
    if (!notMine.isEmpty()) {
      datagrams.add(new Datagram(self, replyTo, byNode.getOrDefault(replyTo, List.of()), notMine));
      byNode.remove(replyTo);
    }
    byNode.forEach((to, messages) -> datagrams.add(new Datagram(self, to, messages, List.of())));
    List<Datagram> early = new ArrayList<>();
    route(fx.early()).forEach((to, messages) -> early.add(new Datagram(self, to, messages, List.of())));
    return new Step(fx.changes(), fx.deferred(), early, datagrams, fx.replies());
  }

  /**
   * A join message ({@code J}, {@code JA}, {@code JAA}) to a key this node hosts is handled within the step that
   * sent it, not sent to this node: a leader's own members join in the step that creates the group, and their
   * {@code JOINING} records are written with the group's {@code CREATING} record instead of one write later. That is
   * a legal schedule of the network (a datagram to oneself arriving at once) whose outputs wait for more writes, so
   * it promises nothing new; {@link WriteOrder} writes the members' records no later than an {@code ACTIVE} record
   * that counts them. {@code D} and {@code DA} still go through the network: a release must follow its group's
   * durable {@code DELETING}, one batch later. The rounds are bounded (J, JA, JAA is the longest chain); anything
   * left after them is sent as a datagram.
   */
  private void deliverLocally(Effects fx, long now) {
    Message.Visitor<Void> dispatch = dispatcher(fx, now);
    for (int round = 0; round < MAX_LOCAL_ROUNDS; round++) {
      List<Message> local = fx.takeLocal(
          m -> !(m instanceof Delete) && !(m instanceof DeleteAck) && hosts.test(m.destination()));
      if (local.isEmpty()) {
        return;
      }
      local.forEach(m -> m.accept(dispatch));
    }
  }

  private Map<NodeId, List<Message>> route(Iterable<Message> messages) {
    Map<NodeId, List<Message>> byNode = new LinkedHashMap<>();
    for (Message m : messages) {
      NodeId to = locator.locate(m.destination());
      if (to == null) {
        stats.messagesUnroutable++;
        continue;
      }
      byNode.computeIfAbsent(to, n -> new ArrayList<>()).add(m);
      stats.messagesSent++;
    }
    return byNode;
  }
}
