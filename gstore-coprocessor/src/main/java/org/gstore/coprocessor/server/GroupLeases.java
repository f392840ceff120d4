package org.gstore.coprocessor.server;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.gstore.common.protocol.ClientRequest;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.Reply;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases of the groups this server leads. A group created with a lease lives while its clients renew it; one
 * whose lease lapses is deleted here exactly as a client's {@code delete()} would (its commits shipped and
 * persisted, then its rows released).
 *
 * <p>Expiries are durable ({@link Store}: next to each group's record in {@code gstore:groups}), written before a
 * renewal is answered, so a lease survives leader moves and crashes: a new leader reads the expiry its predecessor
 * wrote instead of starting from its own clock. A group is deleted only once its lease lapsed by every account:
 * <ul>
 *   <li>its durable expiry passed (read again from the store just before deleting: a renewal another leader made
 *       durable late still counts);
 *   <li>no client asked to renew it within its lease here (a renewal that could not be made durable, the store
 *       being down, still shows the client is alive);
 *   <li>this server has served it for two renewal rounds (two thirds of its lease): while no leader served it (a
 *       crash, a move), its clients could not renew, so an expiry that lapsed meanwhile gets them one more chance.
 * </ul>
 * So a leader change lengthens a lease by at most two renewal rounds after the group serves again, and shortens it
 * never. Expiries are wall-clock times: servers' clock skew (at most HBase's {@code hbase.master.maxclockskew})
 * shifts one by as much, and a clock that steps forward by more than a lease expires leases early.
 *
 * <p>Only active groups are counted: a lease starts when this leader first sees its group active. An incarnation
 * whose lease lapsed is never renewed again, and its delete is retried at every check until it is gone. A server
 * whose checks were held up (a pause) counts it as an outage: every group gets its two renewal rounds again.
 *
 * <p>No lock is held across I/O: renewals (RPC threads) and checks (this class's thread) share concurrent maps; a
 * renewal marks its ask, and a check decides a lease lapsed, under one lock that covers no I/O, so a renewal
 * answered {@code RENEWED} is never followed by an expiry of the lease it renewed here. A renewal of a group whose
 * leader row moved while it was written is answered {@code NOT_HERE}: the next leader may have read the older expiry.
 */
public final class GroupLeases implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupLeases.class);

  /** Where leases are kept durably. */
  public interface Store {
    /** The durable lease of each group that has one, by incarnation (a stale one of an earlier group is not). */
    Map<GroupRef, Lease> leases(Collection<GroupRef> groups) throws IOException;

    /** Makes the leases durable before returning. */
    void write(Collection<Lease> leases) throws IOException;
  }

  /** A group's lease: when it lapses (the leader's clock) and which client renewed it last (null: none yet). */
  public record Lease(GroupRef group, long expiresAt, String holder) {}

  /** The groups the engine leads here that are being created or active. */
  public interface LiveGroups {
    Map<GroupId, GroupRecord> live() throws IOException;
  }

  /** Starts the deletion of a group, as a client's delete would. */
  public interface Deleter {
    CompletableFuture<Reply> delete(ClientRequest.Delete request) throws IOException;
  }

  /** How a renewal of one group went. */
  public enum Outcome { RENEWED, NOT_HERE, NO_LEASE, NO_GROUP }

  /** The answer for one group; {@code expiresAt} only when renewed (this server's clock). */
  public record Answer(GroupId id, Outcome outcome, long expiresAt) {}

  private final LiveGroups groups;
  private final Predicate<Key> leadsHere;
  private final Store store;
  private final StepWriter.ServerFence fence;
  private final Deleter deleter;
  private final GStoreMetrics metrics;
  private final LongSupplier clock;
  /** Each leased group's lease as this server last made it durable, or read it. */
  private final Map<GroupId, Lease> leases = new ConcurrentHashMap<>();
  /** When a client last asked to renew each group here, made durable or not. */
  private final Map<GroupId, Long> askedAt = new ConcurrentHashMap<>();
  /** When this server first saw each leased group active. */
  private final Map<GroupRef, Long> servedSince = new ConcurrentHashMap<>();
  /** Incarnations whose lease lapsed: deleted until they are gone, never renewed. */
  private final Set<GroupRef> expiring = ConcurrentHashMap.newKeySet();
  /** A gap between two checks that only a stall explains (they run every second). */
  private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(5);
  /** When the last check ran ({@code System.nanoTime()}: a pause shows in it, a clock step does not). */
  private volatile long lastCheckNanos = System.nanoTime();
  /** Incarnations with a delete under way. */
  private final Set<GroupRef> deleting = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService thread;
  /** Starts deletes: one may wait for its group's commits to be shipped, which must not hold the checks up. */
  private final ExecutorService deletions;

  /**
   * @param fence checked after every lease write and before its answer: a zombie of this server (declared dead,
   *     its WAL fenced) must not answer {@code RENEWED} for a write the group's next leader may not have read
   */
  public GroupLeases(LiveGroups groups, Predicate<Key> leadsHere, Store store, StepWriter.ServerFence fence,
      Deleter deleter, GStoreMetrics metrics, LongSupplier clock, ThreadFactory threads) {
    this.groups = groups;
    this.leadsHere = leadsHere;
    this.store = store;
    this.fence = fence;
    this.deleter = deleter;
    this.metrics = metrics;
    this.clock = clock;
    this.thread = Executors.newSingleThreadScheduledExecutor(threads);
    this.deletions = Executors.newSingleThreadExecutor(threads);
  }

  /** How often a server looks for lapsed leases: an expiry takes effect within this much. */
  private static final long CHECK_MILLIS = 1_000;

  /** Checks for lapsed leases every {@link #CHECK_MILLIS}. */
  public void start() {
    thread.scheduleWithFixedDelay(this::checkSurvivingAnything, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * Renews the leases of {@code ids} for {@code holder}: each that this server leads, is alive and has a lease
   * expires a lease from now, durably before this returns.
   *
   * @throws org.gstore.coprocessor.wal.WalFencedException if a recovery fenced this server (answers nothing)
   */
  public List<Answer> renew(List<GroupId> ids, String holder) throws IOException {
    // led here before the engine is asked: a region becomes ready and loads its groups in one engine step, so a
    // group of a region ready now is in the engine's answer
    List<GroupId> here = ids.stream().filter(id -> leadsHere.test(id.leader())).toList();
    Map<GroupId, GroupRecord> live = here.isEmpty() ? Map.of() : groups.live();
    long now = clock.getAsLong();
    Map<GroupId, Answer> answers = new LinkedHashMap<>();
    List<Lease> renewed = new ArrayList<>();
    for (GroupId id : ids) {
      GroupRecord record = live.get(id);
      if (!here.contains(id)) {
        answers.put(id, new Answer(id, Outcome.NOT_HERE, 0));
      } else if (record == null) {
        answers.put(id, new Answer(id, Outcome.NO_GROUP, 0));
      } else if (record.leaseMillis() == 0) {
        answers.put(id, new Answer(id, Outcome.NO_LEASE, 0));
      } else if (!markAsked(record.group(), now)) {
        answers.put(id, new Answer(id, Outcome.NO_GROUP, 0)); // its lease lapsed: it is being deleted
      } else {
        renewed.add(new Lease(record.group(), now + record.leaseMillis(), holder));
      }
    }
    if (!renewed.isEmpty()) {
      store.write(renewed);
      fence.check(); // as StepWriter after a state write: the next leader reads it only after a recovery's rename
      for (Lease lease : renewed) {
        GroupId id = lease.group().id();
        leases.merge(id, lease, GroupLeases::later);
        Outcome outcome;
        if (!leadsHere.test(id.leader())) {
          outcome = Outcome.NOT_HERE; // moved while it was written: its next leader may have read the older expiry
        } else if (isExpiringNow(lease.group())) {
          outcome = Outcome.NO_GROUP;
        } else {
          outcome = Outcome.RENEWED;
        }
        answers.put(id, new Answer(id, outcome, outcome == Outcome.RENEWED ? lease.expiresAt() : 0));
      }
    }
    List<Answer> ordered = new ArrayList<>(ids.size());
    ids.forEach(id -> ordered.add(answers.get(id)));
    return ordered;
  }

  /**
   * Records that a client asked to renew {@code group} at {@code now}, unless its lease already lapsed here; the
   * decision that a lease lapsed is taken under the same lock ({@link #decideLapsed}), so the two never cross.
   */
  private synchronized boolean markAsked(GroupRef group, long now) {
    if (expiring.contains(group)) {
      return false;
    }
    askedAt.merge(group.id(), now, Math::max);
    return true;
  }

  private synchronized boolean isExpiringNow(GroupRef group) {
    return expiring.contains(group);
  }

  /** Marks the group's lease lapsed if it still is, by every account; under the lock {@link #markAsked} takes. */
  private synchronized boolean decideLapsed(GroupRecord record, long now) {
    if (!lapsed(record, now)) {
      return false;
    }
    expiring.add(record.group());
    return true;
  }

  private static Lease later(Lease a, Lease b) {
    return b.expiresAt() > a.expiresAt() ? b : a;
  }

  /** The lease of {@code id} as this server knows it, or null if it has none here (yet). */
  public Lease lease(GroupId id) {
    return leases.get(id);
  }

  /** Whether the lease of {@code id} lapsed here: its group is being deleted. */
  public synchronized boolean isExpiring(GroupId id) {
    return expiring.stream().anyMatch(g -> g.id().equals(id));
  }

  /** When the lease of {@code id} lapses, as this server knows it, or null. */
  public Long expiresAt(GroupId id) {
    Lease lease = lease(id);
    return lease == null ? null : lease.expiresAt();
  }

  private void checkSurvivingAnything() {
    try {
      check();
    } catch (Throwable e) { // NOPMD: an Error must not end the checks for good; the next one tries again
      LOG.warn("G-Store could not check group leases; retrying", e);
    }
  }

  /**
   * Forgets groups no longer led here, learns the leases of those newly active here (from the store, or a lease
   * from now if none was written), and deletes the active groups whose lease lapsed (see the class comment).
   */
  void check() throws IOException {
    Map<GroupId, GroupRecord> live = groups.live();
    long now = clock.getAsLong();
    Map<GroupId, GroupRecord> leased = new HashMap<>();
    live.forEach((id, record) -> {
      if (record.leaseMillis() > 0 && record.phase() == GroupPhase.ACTIVE && leadsHere.test(id.leader())) {
        leased.put(id, record);
      }
    });
    leases.entrySet().removeIf(e -> !isLeased(leased, e.getValue().group()));
    askedAt.keySet().removeIf(id -> !leased.containsKey(id));
    servedSince.keySet().removeIf(group -> !isLeased(leased, group));
    expiring.removeIf(group -> !isLeased(live, group)); // deleted (or moved away): done here
    long sinceLastCheck = System.nanoTime() - lastCheckNanos;
    lastCheckNanos = System.nanoTime();
    if (sinceLastCheck > STALL_NANOS) {
      // this server stalled (a pause, a stuck engine): its clients' renewals may have waited in its queue, so it
      // counts as an outage, and every group gets its two renewal rounds again
      LOG.info("G-Store's lease checks were held up {} ms; every leased group gets two renewal rounds from now",
          TimeUnit.NANOSECONDS.toMillis(sinceLastCheck));
      servedSince.replaceAll((group, since) -> now);
    }
    leased.values().forEach(r -> servedSince.putIfAbsent(r.group(), now));
    learn(leased);

    List<GroupRecord> lapsed = new ArrayList<>();
    for (GroupRecord record : leased.values()) {
      if (!expiring.contains(record.group()) && lapsed(record, now)) {
        lapsed.add(record);
      }
    }
    if (!lapsed.isEmpty()) {
      List<GroupRef> refs = new ArrayList<>();
      lapsed.forEach(r -> refs.add(r.group()));
      store.leases(refs).forEach((group, durable) -> leases.merge(group.id(), durable, GroupLeases::later));
      for (GroupRecord record : lapsed) {
        decideLapsed(record, clock.getAsLong()); // not if renewed meanwhile
      }
    }
    for (GroupRef group : expiring) {
      GroupRecord record = leased.get(group.id());
      if (record != null && record.group().equals(group) && deleting.add(group)) {
        deletions.execute(() -> expire(record, now));
      }
    }
  }

  /** Whether the group's lease lapsed by every account (see the class comment). */
  private boolean lapsed(GroupRecord record, long now) {
    Lease lease = leases.get(record.id());
    long graceFrom = servedSince.getOrDefault(record.group(), now) + record.leaseMillis() * 2 / 3;
    long asked = askedAt.getOrDefault(record.id(), Long.MIN_VALUE / 2) + record.leaseMillis();
    return lease != null && now >= Math.max(lease.expiresAt(), Math.max(graceFrom, asked));
  }

  private static boolean isLeased(Map<GroupId, GroupRecord> groups, GroupRef group) {
    GroupRecord record = groups.get(group.id());
    return record != null && record.group().equals(group);
  }

  /** Reads, or starts, the lease of each group this server did not know yet. */
  private void learn(Map<GroupId, GroupRecord> leased) throws IOException {
    List<GroupRef> unknown = new ArrayList<>();
    leased.forEach((id, record) -> {
      if (!leases.containsKey(id)) {
        unknown.add(record.group());
      }
    });
    if (unknown.isEmpty()) {
      return;
    }
    Map<GroupRef, Lease> durable = store.leases(unknown);
    List<Lease> started = new ArrayList<>();
    long now = clock.getAsLong();
    for (GroupRef group : unknown) {
      Lease lease = durable.get(group);
      if (lease == null) {
        started.add(new Lease(group, now + leased.get(group.id()).leaseMillis(), null));
      } else {
        leases.putIfAbsent(group.id(), lease); // a renewal that came meanwhile is newer
      }
    }
    if (!started.isEmpty()) {
      store.write(started);
      started.forEach(lease -> leases.putIfAbsent(lease.group().id(), lease));
    }
  }

  /** Starts the delete of a group whose lease lapsed; once it ends, the next check retries it if needed. */
  private void expire(GroupRecord record, long now) {
    GroupId id = record.id();
    Lease lease = leases.get(id);
    LOG.info("G-Store deletes group {}: its lease of {} ms lapsed {} ms ago without a renewal (last renewed by {})",
        id, record.leaseMillis(), lease == null ? 0 : now - lease.expiresAt(), lease == null ? "nobody"
        : lease.holder());
    // one request id per incarnation: a retried expiry joins the delete already under way
    ClientRequest.Delete delete = new ClientRequest.Delete("lease-expired:" + record.group().epoch(), id);
    CompletableFuture<Reply> deleted;
    try {
      deleted = deleter.delete(delete);
    } catch (IOException | RuntimeException e) { // NOPMD: the next check tries again
      LOG.warn("G-Store could not start deleting group {} whose lease lapsed; retrying", id, e);
      deleting.remove(record.group());
      return;
    }
    deleted.whenComplete((reply, failure) -> {
      try {
        if (failure == null && reply != null && reply.outcome() == Reply.Outcome.DELETED) {
          metrics.leaseExpired();
        } else if (failure != null) {
          LOG.warn("G-Store's delete of group {}, whose lease lapsed, failed; retrying", id, failure);
        }
      } finally {
        deleting.remove(record.group()); // the next check retries it unless the group is gone
      }
    });
  }

  @Override
  public void close() {
    thread.shutdownNow();
    deletions.shutdownNow();
  }
}
