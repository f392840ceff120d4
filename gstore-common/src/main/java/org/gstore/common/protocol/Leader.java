package org.gstore.common.protocol;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The leader's half of the Key Grouping protocol for every group led by a key this node hosts (G-Store paper,
 * section 4.2): logs the group, sends {@code J} until every member answered, answers every joined {@code JA} with
 * {@code JAA}, and on delete sends {@code D} until every member that may have joined answered {@code DA}. It logs
 * the group only when its phase changes (CREATING, ACTIVE, DELETING, ENDED), each time with the members' answers
 * so far; answers in between are only remembered, because the retries ask for them again after a crash.
 *
 * <p>An ended group stays as a tombstone for {@link ProtocolConfig#endedRetentionMillis()}: a client that retried a
 * create or delete whose first attempt already finished must get that outcome, not a new group nobody will delete.
 *
 * <p>Pure and single-threaded: every input comes with the current time and every output goes into {@link Effects}.
 */
final class Leader {
  private final ProtocolConfig config;
  private final UidSource uids;
  private final ProtocolStats stats;
  private final RetryTimeout timeout;
  private final Map<GroupId, LeaderGroup> groups = new LinkedHashMap<>();
  /**
   * The groups not ended (being created, active, being deleted): what {@link #unendedGroups} reads, without walking
   * the tombstones, of which a busy leader keeps thousands ({@code gstore.group.tombstone.retention.ms}).
   */
  private final Set<LeaderGroup> unended = new LinkedHashSet<>();
  /** Groups with a retry timer (being created or deleted): ticks look at these only, not at every group. */
  private final Set<LeaderGroup> retrying = new LinkedHashSet<>();
  /** Tombstones by expiry; an entry whose group was replaced or unloaded is skipped when it comes up. */
  private final java.util.PriorityQueue<LeaderGroup> tombstones =
      new java.util.PriorityQueue<>(java.util.Comparator.comparingLong(g -> g.endedAt));
  /** Groups changed in the current step: each is written once, by {@link #flush}, however often it changed. */
  private final Set<LeaderGroup> dirty = new LinkedHashSet<>();

  Leader(ProtocolConfig config, RetryTimeout timeout, UidSource uids, ProtocolStats stats) {
    this.timeout = timeout;
    this.config = config;
    this.uids = uids;
    this.stats = stats;
  }

  void create(ClientRequest.Create req, long now, Effects fx) {
    String invalid = validate(req);
    if (invalid != null) {
      fx.reply(new Reply.Create(req.requestId(), Reply.Outcome.INVALID, null, invalid));
      return;
    }
    LeaderGroup existing = groups.get(req.group());
    if (existing != null && (existing.phase != GroupPhase.ENDED || existing.createRequest.equals(req.requestId()))) {
      answerRepeatedCreate(existing, req, fx);
      return;
    }
    TreeMap<Key, MemberState> members = new TreeMap<>();
    for (Key k : req.members()) {
      members.put(k, MemberState.PENDING);
    }
    members.put(req.group().leader(), MemberState.PENDING);
    GroupRef ref = new GroupRef(req.group(), uids.next(fx));
    LeaderGroup g = new LeaderGroup(
        new GroupRecord(ref, req.mode(), GroupPhase.CREATING, req.requestId(), members, null, 0, req.leaseMillis()),
        new Retry(timeout, now));
    g.createWaiters.add(req.requestId());
    put(g); // replaces a tombstone of an earlier group with this name, if any
    retrying.add(g);
    persist(g);
    for (Key k : members.keySet()) {
      fx.sendEarly(new Join(ref, k)); // need not wait for CREATING: see Step#early
    }
  }

  private String validate(ClientRequest.Create req) {
    int size = req.members().size() + (req.members().contains(req.group().leader()) ? 0 : 1);
    if (size > config.maxGroupSize()) {
      return "a group of " + size + " rows exceeds the maximum group size of " + config.maxGroupSize();
    }
    return null;
  }

  /** A create for a name that is taken: the same request retried, or a different one while the group lives. */
  private void answerRepeatedCreate(LeaderGroup g, ClientRequest.Create req, Effects fx) {
    if (!g.createRequest.equals(req.requestId())) {
      fx.reply(new Reply.Create(req.requestId(), Reply.Outcome.EXISTS, null,
          "group " + req.group() + " already exists"));
      return;
    }
    switch (g.phase) {
      case CREATING, DELETING -> g.createWaiters.add(req.requestId()); // DELETING: answered once every row is free
      case ACTIVE -> fx.reply(new Reply.Create(req.requestId(), Reply.Outcome.CREATED, g.toRecord(), null));
      case ENDED -> fx.reply(createFailed(g, req.requestId()));
      default -> throw new IllegalStateException(g.phase.name());
    }
  }

  private static Reply.Create createFailed(LeaderGroup g, String requestId) {
    return new Reply.Create(requestId, Reply.Outcome.FAILED, g.toRecord(),
        g.failure != null ? g.failure : "group " + g.ref.id() + " was deleted");
  }

  void delete(ClientRequest.Delete req, long now, Effects fx) {
    LeaderGroup g = groups.get(req.group());
    if (g == null) {
      fx.reply(new Reply.Delete(req.requestId(), Reply.Outcome.NOT_FOUND, "no group " + req.group()));
    } else if (g.phase == GroupPhase.ENDED) {
      fx.reply(new Reply.Delete(req.requestId(), Reply.Outcome.DELETED, null)); // a retry, or a late second delete
    } else {
      g.deleteWaiters.add(req.requestId());
      if (g.phase != GroupPhase.DELETING) {
        startDelete(g, "group " + g.ref.id() + " was deleted before its creation completed", now, fx);
      }
    }
  }

  void onJoinAck(JoinAck ja, long now, Effects fx) {
    LeaderGroup g = current(ja.group());
    MemberState m = g == null ? null : g.members.get(ja.member());
    if (m == null || g.phase == GroupPhase.DELETING) {
      // An ended or unknown group, or not a member: a delayed JA, or a follower that yielded to a stale J. One
      // unlogged D frees the key; the follower's JA retries make up for its loss. While deleting, D is sent anyway.
      if (ja.joined()) {
        fx.send(new Delete(ja.group(), ja.member()));
      }
      return;
    }
    // A member's answer is remembered, not logged: it is logged with the group's next phase (ACTIVE, or DELETING
    // when creation fails). A leader that crashes before that reloads the member as PENDING and sends J again; the
    // member answers a duplicate J with the same JA, so the answer is asked for again instead of being lost.
    if (!ja.joined() && m.is(MemberState.Status.PENDING) && heldByLostIncarnation(g, ja.holder())) {
      // The key waits for an earlier incarnation of this very group: a create whose J left before this leader
      // crashed and forgot it (J leaves before CREATING is durable). Free it; the member stays pending and the J
      // retry asks again, rather than fail the client's retried create because of its own first attempt.
      fx.send(new Delete(ja.holder(), ja.member()));
      return;
    }
    if (!ja.joined()) {
      if (m.is(MemberState.Status.PENDING)) {
        answered(g, now);
        g.members.put(ja.member(), MemberState.refused(ja.refusal()));
      }
    } else if (m.is(MemberState.Status.REFUSED)) {
      // A duplicate J reached the key after it became free: the group already counts it as refused, and undoes
      // the join. The refusal is logged before that D leaves: a leader that reloaded the group without it (a
      // restart, a move of the leader key) would ask the member again, get this very yield, count it joined, and
      // the D, arriving later, would free a member of an active group.
      persist(g);
      fx.send(new Delete(ja.group(), ja.member()));
    } else {
      if (m.is(MemberState.Status.PENDING)) {
        answered(g, now);
        g.members.put(ja.member(), MemberState.joined(ja.yieldId()));
      }
      fx.send(new JoinAckAck(ja.group(), ja.member(), ja.yieldId()));
    }
    if (g.phase == GroupPhase.CREATING && !g.any(MemberState.Status.PENDING)) {
      finishCreate(g, now, fx);
    }
  }

  /**
   * Whether {@code holder} is an incarnation of {@code g}'s group other than {@code g}: this node leads the group
   * and knows no such live incarnation, so it ended or was lost with an earlier life of the leader (the same
   * reasoning that answers a JA of an unknown incarnation with D).
   */
  private static boolean heldByLostIncarnation(LeaderGroup g, GroupRef holder) {
    return holder != null && holder.id().equals(g.ref.id()) && !holder.equals(g.ref);
  }

  /** A member's first answer in this phase: a round-trip sample for the retry timeout, if sent once. */
  private static void answered(LeaderGroup g, long now) {
    if (g.retry != null) {
      g.retry.answered(now);
    }
  }

  private void finishCreate(LeaderGroup g, long now, Effects fx) {
    String failure = g.creationFailure();
    if (failure != null) {
      startDelete(g, failure, now, fx);
      return;
    }
    g.phase = GroupPhase.ACTIVE;
    g.retry = null;
    retrying.remove(g);
    persist(g);
    stats.groupsCreated++;
    GroupRecord record = g.toRecord();
    for (String waiter : g.createWaiters) {
      fx.reply(new Reply.Create(waiter, Reply.Outcome.CREATED, record, null));
    }
    g.createWaiters.clear();
  }

  /**
   * Ends creation (if still running) with {@code createFailure} and starts sending D. The create's waiters are
   * answered when the group has ended, not before: when a client hears that creation failed, no row is held by
   * the failed group any more.
   */
  private void startDelete(LeaderGroup g, String createFailure, long now, Effects fx) {
    if (g.phase == GroupPhase.CREATING) {
      stats.groupsFailed++;
      g.failure = createFailure;
    }
    g.phase = GroupPhase.DELETING;
    g.retry = new Retry(timeout, now);
    retrying.add(g);
    persist(g);
    sendDeletes(g, fx);
    endIfReleased(g, now, fx);
  }

  void onDeleteAck(DeleteAck da, long now, Effects fx) {
    LeaderGroup g = current(da.group());
    if (g == null || g.phase != GroupPhase.DELETING) {
      return; // stale: an earlier incarnation, or the answer to a D sent for a refused member
    }
    MemberState m = g.members.get(da.member());
    if (m != null && g.awaitsRelease(m)) {
      // Remembered, logged with ENDED: a leader that crashes before that sends D again, and every D gets a DA.
      answered(g, now);
      g.members.put(da.member(), MemberState.RELEASED);
      endIfReleased(g, now, fx);
    }
  }

  private void endIfReleased(LeaderGroup g, long now, Effects fx) {
    if (!g.membersAwaitingRelease().isEmpty()) {
      return;
    }
    g.phase = GroupPhase.ENDED;
    unended.remove(g);
    g.endedAt = now;
    g.retry = null;
    retrying.remove(g);
    tombstones.add(g);
    persist(g);
    stats.groupsDeleted++;
    for (String waiter : g.createWaiters) {
      fx.reply(createFailed(g, waiter));
    }
    g.createWaiters.clear();
    for (String waiter : g.deleteWaiters) {
      fx.reply(new Reply.Delete(waiter, Reply.Outcome.DELETED, null));
    }
    g.deleteWaiters.clear();
  }

  void tick(long now, Effects fx) {
    while (!tombstones.isEmpty() && now >= expiry(tombstones.peek())) {
      LeaderGroup g = tombstones.poll();
      if (groups.get(g.ref.id()) == g) {
        groups.remove(g.ref.id());
        fx.persist(new StateChange.RemoveGroup(g.ref));
      }
    }
    for (LeaderGroup g : List.copyOf(retrying)) {
      if (!g.retry.fire(now)) {
        continue;
      }
      int before = fx.messages().size();
      if (g.phase == GroupPhase.CREATING) {
        g.members.forEach((k, m) -> {
          if (m.is(MemberState.Status.PENDING)) {
            fx.send(new Join(g.ref, k));
          }
        });
      } else {
        sendDeletes(g, fx);
      }
      stats.messagesRetried += fx.messages().size() - before;
    }
  }

  private long expiry(LeaderGroup g) {
    return g.endedAt + config.endedRetentionMillis();
  }

  private void sendDeletes(LeaderGroup g, Effects fx) {
    for (Key k : g.membersAwaitingRelease()) {
      fx.send(new Delete(g.ref, k));
    }
  }

  long nextWakeup() {
    long next = tombstones.isEmpty() ? Long.MAX_VALUE : expiry(tombstones.peek());
    for (LeaderGroup g : retrying) {
      next = Math.min(next, g.retry.dueAt());
    }
    return next;
  }

  /** Takes over groups whose leader key this node now hosts; interrupted creates and deletes resume at once. */
  void load(GroupRecord record, long now) {
    boolean inProgress = record.phase() == GroupPhase.CREATING || record.phase() == GroupPhase.DELETING;
    LeaderGroup g = new LeaderGroup(record, inProgress ? Retry.immediately(timeout, now) : null);
    g.logged = record;
    put(g);
    if (inProgress) {
      retrying.add(g);
    } else if (record.phase() == GroupPhase.ENDED) {
      tombstones.add(g);
    }
  }

  /** Gives up the groups led by keys this node no longer hosts; their waiting clients must retry elsewhere. */
  void unload(Predicate<Key> gone, Effects fx) {
    List<LeaderGroup> leaving = new ArrayList<>();
    for (LeaderGroup g : groups.values()) {
      if (gone.test(g.ref.leader())) {
        leaving.add(g);
      }
    }
    for (LeaderGroup g : leaving) {
      groups.remove(g.ref.id());
      unended.remove(g);
      retrying.remove(g);
      String moved = "the leader key of " + g.ref.id() + " moved; retry";
      g.createWaiters.forEach(w -> fx.reply(new Reply.Create(w, Reply.Outcome.NOT_LEADER, null, moved)));
      g.deleteWaiters.forEach(w -> fx.reply(new Reply.Delete(w, Reply.Outcome.NOT_LEADER, moved)));
    }
  }

  /** Keeps {@code g} as its name's group, in place of any earlier one. */
  private void put(LeaderGroup g) {
    LeaderGroup replaced = groups.put(g.ref.id(), g);
    if (replaced != null) { // its timers and index entry go with it: only g speaks for the name now
      unended.remove(replaced);
      retrying.remove(replaced);
    }
    if (g.phase != GroupPhase.ENDED) {
      unended.add(g);
    }
  }

  /** The group's current record, tombstones included. */
  Optional<GroupRecord> group(GroupId id) {
    return Optional.ofNullable(groups.get(id)).map(LeaderGroup::toRecord);
  }

  int size() {
    return groups.size();
  }

  /**
   * Every group's record as last logged: what this node would reload after a crash. Members' answers that arrived
   * since are not in it ({@link #group} has them).
   */
  Collection<GroupRecord> groups() {
    return groups.values().stream().map(g -> g.logged).toList();
  }

  /** As {@link #groups}, without the ended groups' tombstones: as cheap as there are groups not ended. */
  Collection<GroupRecord> unendedGroups() {
    return unended.stream().map(g -> g.logged).toList();
  }

  /** The live group this message is about, if this node leads that very incarnation and it has not ended. */
  private LeaderGroup current(GroupRef ref) {
    LeaderGroup g = groups.get(ref.id());
    return g != null && g.ref.equals(ref) && g.phase != GroupPhase.ENDED ? g : null;
  }

  private void persist(LeaderGroup g) {
    dirty.add(g);
  }

  /** Writes the groups this step changed, unless their tombstone expired in the same step. */
  void flush(Effects fx) {
    for (LeaderGroup g : dirty) {
      if (groups.get(g.ref.id()) == g) {
        GroupRecord next = g.toRecord();
        if (next.phase() == GroupPhase.CREATING) {
          // Joins are logged with the next phase, not with CREATING: a restart asks again. The joins of the
          // leader's own keys, taken in this very step, would otherwise tie this write to theirs (WriteOrder).
          // Refusals are kept: one is logged when a D depends on it (onJoinAck).
          next = next.withJoinsForgotten();
        }
        if (RestartRepair.reaches(g.logged, next)) {
          fx.persistDeferred(new StateChange.PutGroup(next));
        } else {
          fx.persist(new StateChange.PutGroup(next));
        }
        g.logged = next;
      }
    }
    dirty.clear();
  }
}
