package org.gstore.coprocessor.server;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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
 * wrote instead of starting from its own clock. Only a group whose leader changed before any expiry was written (its
 * first {@code check} or renewal) gets a full lease from the new leader. Expiries are wall-clock times, so servers'
 * clock skew (at most HBase's {@code hbase.master.maxclockskew}) shifts one by as much.
 */
public final class GroupLeases implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupLeases.class);

  /** Where expiries are kept durably. */
  public interface Store {
    /** The durable expiry of each group that has one, by incarnation (a stale one of an earlier group is not). */
    Map<GroupRef, Long> expiries(Collection<GroupRef> groups) throws IOException;

    /** Makes the expiries durable before returning. */
    void writeExpiries(Map<GroupRef, Long> expiries) throws IOException;
  }

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

  /** A lease as this server last made it durable, or read it. */
  private record Lease(GroupRef group, long expiresAt) {}

  private final LiveGroups groups;
  private final Predicate<Key> leadsHere;
  private final Store store;
  private final Deleter deleter;
  private final GStoreMetrics metrics;
  private final LongSupplier clock;
  private final Map<GroupId, Lease> leases = new HashMap<>();
  /** Groups whose expiry started a delete that has not ended yet. */
  private final Set<GroupId> expiring = new HashSet<>();
  private final ScheduledExecutorService thread;

  public GroupLeases(LiveGroups groups, Predicate<Key> leadsHere, Store store, Deleter deleter,
      GStoreMetrics metrics, LongSupplier clock, ThreadFactory threads) {
    this.groups = groups;
    this.leadsHere = leadsHere;
    this.store = store;
    this.deleter = deleter;
    this.metrics = metrics;
    this.clock = clock;
    this.thread = Executors.newSingleThreadScheduledExecutor(threads);
  }

  /** Checks for lapsed leases every {@code periodMillis}. */
  public void start(long periodMillis) {
    thread.scheduleWithFixedDelay(this::checkSurvivingAnything, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  /**
   * Renews the leases of {@code ids}: each that this server leads, is alive and has a lease expires a lease from
   * now, durably before this returns.
   */
  public synchronized List<Answer> renew(List<GroupId> ids) throws IOException {
    Map<GroupId, GroupRecord> live = groups.live();
    long now = clock.getAsLong();
    List<Answer> answers = new ArrayList<>(ids.size());
    Map<GroupRef, Long> renewed = new HashMap<>();
    for (GroupId id : ids) {
      GroupRecord record = live.get(id);
      if (!leadsHere.test(id.leader())) {
        answers.add(new Answer(id, Outcome.NOT_HERE, 0));
      } else if (record == null || expiring.contains(id)) {
        answers.add(new Answer(id, Outcome.NO_GROUP, 0));
      } else if (record.leaseMillis() == 0) {
        answers.add(new Answer(id, Outcome.NO_LEASE, 0));
      } else {
        long expiresAt = now + record.leaseMillis();
        renewed.put(record.group(), expiresAt);
        answers.add(new Answer(id, Outcome.RENEWED, expiresAt));
      }
    }
    if (!renewed.isEmpty()) {
      store.writeExpiries(renewed);
      renewed.forEach((group, expiresAt) -> leases.put(group.id(), new Lease(group, expiresAt)));
    }
    return answers;
  }

  /** The lease of {@code id} as this server knows it: its expiry, or null if it has none here. */
  public synchronized Long expiresAt(GroupId id) {
    Lease lease = leases.get(id);
    return lease == null ? null : lease.expiresAt();
  }

  private void checkSurvivingAnything() {
    try {
      check();
    } catch (IOException | RuntimeException e) { // NOPMD: the next check tries again; the thread must go on
      LOG.warn("G-Store could not check group leases; retrying", e);
    }
  }

  /**
   * Learns the expiries of groups newly led here (from the store, or a lease from now if none was written), and
   * deletes the active groups whose lease lapsed.
   */
  synchronized void check() throws IOException {
    Map<GroupId, GroupRecord> leased = new HashMap<>();
    groups.live().forEach((id, record) -> {
      if (record.leaseMillis() > 0 && leadsHere.test(id.leader())) {
        leased.put(id, record);
      }
    });
    leases.keySet().removeIf(id -> !leased.containsKey(id)
        || !leased.get(id).group().equals(leases.get(id).group()));
    learn(leased);
    long now = clock.getAsLong();
    for (Lease lease : List.copyOf(leases.values())) {
      GroupRecord record = leased.get(lease.group().id());
      if (lease.expiresAt() <= now && record.phase() == GroupPhase.ACTIVE && expiring.add(record.id())) {
        expire(record, now - lease.expiresAt());
      }
    }
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
    Map<GroupRef, Long> durable = store.expiries(unknown);
    Map<GroupRef, Long> started = new HashMap<>();
    long now = clock.getAsLong();
    for (GroupRef group : unknown) {
      Long expiresAt = durable.get(group);
      if (expiresAt == null) {
        started.put(group, now + leased.get(group.id()).leaseMillis());
      } else {
        leases.put(group.id(), new Lease(group, expiresAt));
      }
    }
    if (!started.isEmpty()) {
      store.writeExpiries(started);
      started.forEach((group, expiresAt) -> leases.put(group.id(), new Lease(group, expiresAt)));
    }
  }

  private void expire(GroupRecord record, long lapsedMillis) {
    GroupId id = record.id();
    LOG.info("G-Store deletes group {}: its lease of {} ms lapsed {} ms ago without a renewal", id,
        record.leaseMillis(), lapsedMillis);
    // one request id per incarnation: a retried expiry joins the delete already under way
    ClientRequest.Delete delete = new ClientRequest.Delete("lease-expired:" + record.group().epoch(), id);
    CompletableFuture<Reply> deleted;
    try {
      deleted = deleter.delete(delete);
    } catch (IOException | RuntimeException e) { // NOPMD: the next check tries again
      LOG.warn("G-Store could not start deleting group {} whose lease lapsed; retrying", id, e);
      synchronized (this) {
        expiring.remove(id);
      }
      return;
    }
    deleted.whenComplete((reply, failure) -> {
      if (failure == null && reply.outcome() == Reply.Outcome.DELETED) {
        metrics.leaseExpired();
      } else if (failure != null) {
        LOG.warn("G-Store's delete of group {}, whose lease lapsed, failed; retrying", id, failure);
      }
      synchronized (this) {
        expiring.remove(id);
      }
    });
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
