package org.gstore.client;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Connection;
import org.gstore.common.wire.generated.GStoreProtos.LeaseAnswerProto;
import org.gstore.common.wire.generated.GStoreProtos.RenewLeasesRequest;
import org.gstore.common.wire.generated.GStoreProtos.RenewLeasesResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of the groups a {@link GStoreClient} created or looked up, while it is open. Each group is due
 * every third of its lease (and at once when it is first held, unless just created: {@link #hold}); a round, run
 * every third of the shortest lease held (at most every second), sends the due groups in one call per region
 * server that leads any of them (to one of their leader rows: the server answers for all the groups it leads).
 * Calls to different servers run at the same time, so a server that hangs delays only its own groups, and a server
 * whose last call has not returned is skipped. A group whose leader moved is located afresh; one that is gone
 * (deleted, expired) or has no lease is dropped. A failed call is retried at the next round: a lease outlives two
 * missed renewals.
 */
final class LeaseRenewer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseRenewer.class);
  private static final long MIN_PERIOD_MILLIS = 100;
  private static final long MAX_PERIOD_MILLIS = 1_000;
  /**
   * The shortest lease whose first renewal after a create waits a third of it: the rounds, at most
   * {@link #MAX_PERIOD_MILLIS} apart, may send a renewal that late, and a third of this lease plus that still
   * leaves half the lease. Shorter leases are renewed at once, as a looked-up group's.
   */
  static final java.time.Duration FIRST_RENEWAL_DELAYED_FROM = java.time.Duration.ofMillis(6 * MAX_PERIOD_MILLIS);

  private final LeaderServers servers;
  /** Who renews, for operators: this process and host, and which of its clients. */
  private final String holder;
  /** The groups renewed, each with its hold: an answer about an earlier hold of the same id changes nothing. */
  private final Map<GroupId, Hold> held = new ConcurrentHashMap<>();
  /** When each held group is due for renewal ({@code System.nanoTime()}). */
  private final Map<GroupId, Long> dueAt = new ConcurrentHashMap<>();
  /** Groups whose leader was not where the cached location said: located afresh next round. */
  private final Set<GroupId> relocate = ConcurrentHashMap.newKeySet();
  /** Servers whose last call has not returned: skipped until it does. */
  private final Set<ServerName> calling = ConcurrentHashMap.newKeySet();
  private final ScheduledThreadPoolExecutor rounds = new ScheduledThreadPoolExecutor(1, r -> daemon(r, ""));
  private final ExecutorService calls = Executors.newCachedThreadPool(r -> daemon(r, "-call"));
  private boolean started;
  /** Whether a round asked for by {@link #hold} is already queued. */
  private final java.util.concurrent.atomic.AtomicBoolean roundQueued = new java.util.concurrent.atomic.AtomicBoolean();

  /** One hold of a group, compared by identity: a group deleted and created again is a new hold. */
  private static final class Hold {
    final Duration lease;

    Hold(Duration lease) {
      this.lease = lease;
    }
  }

  LeaseRenewer(Connection connection, String holder) {
    this.servers = new LeaderServers(connection);
    this.holder = holder;
  }

  private static Thread daemon(Runnable r, String suffix) {
    Thread t = new Thread(r, "gstore-lease-renewer" + suffix);
    t.setDaemon(true);
    return t;
  }

  /**
   * Renews {@code group}'s lease from now on, if it has one. The first renewal goes at once, unless this client
   * created the group and its lease is long enough ({@link #FIRST_RENEWAL_DELAYED_FROM}): its leader started the
   * lease when the group became active, which is after the create was first sent, so renewing it at once would only
   * cost a call and a lease write per create. It is then due a third of a lease after that first send (at once if
   * the create took longer), so the lease has at least half its length left when the renewal is sent, whatever
   * retries and leader moves the create met. A group looked up may be near its expiry: it is renewed at once.
   *
   * @param createSentAt when this client first sent the create that made the group ({@code System.nanoTime()}),
   *     or {@code null} for a group looked up
   */
  void hold(KeyGroup group, Long createSentAt) {
    if (group.lease().isZero()) {
      return;
    }
    held.put(group.id(), new Hold(group.lease()));
    long now = System.nanoTime();
    boolean delayed = createSentAt != null && group.lease().compareTo(FIRST_RENEWAL_DELAYED_FROM) >= 0
        && createSentAt + group.lease().toNanos() / 3 - now > 0;
    dueAt.put(group.id(), delayed ? createSentAt + group.lease().toNanos() / 3 : now);
    try {
      synchronized (this) {
        if (!started) {
          started = true;
          rounds.schedule(this::roundSurvivingAnything, 0, TimeUnit.MILLISECONDS);
        } else if (!delayed && roundQueued.compareAndSet(false, true)) {
          // a shorter lease than the rounds are paced for must not wait for them; one extra round serves many holds
          rounds.execute(() -> {
            roundQueued.set(false);
            round();
          });
        }
      }
    } catch (RejectedExecutionException closed) {
      // the client is closed: nothing is renewed any more
    }
  }

  /** Stops renewing {@code id} (it was deleted). */
  void release(GroupId id) {
    held.remove(id);
    dueAt.remove(id);
  }


  private long periodMillis() {
    long shortest = held.values().stream().mapToLong(h -> h.lease.toMillis()).min().orElse(3 * MAX_PERIOD_MILLIS);
    return Math.max(MIN_PERIOD_MILLIS, Math.min(MAX_PERIOD_MILLIS, shortest / 3));
  }

  private void roundSurvivingAnything() {
    try {
      round();
    } catch (Throwable e) { // NOPMD: the renewer must outlive anything one round meets
      LOG.warn("G-Store could not renew group leases this round; retrying", e);
    } finally {
      try {
        rounds.schedule(this::roundSurvivingAnything, periodMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closed) {
        // the client is closed
      }
    }
  }

  /** Sends every due renewal, one call per leader server, each on its own thread. */
  private void round() {
    long now = System.nanoTime();
    List<GroupId> due = new ArrayList<>();
    dueAt.forEach((id, at) -> {
      if (at - now <= 0) {
        due.add(id);
      }
    });
    servers.byServer(due, relocate::remove).forEach((server, ids) -> {
      if (calling.add(server)) {
        try {
          calls.execute(() -> renewAt(server, ids));
        } catch (RejectedExecutionException closed) {
          calling.remove(server);
        }
      }
    });
  }

  private void renewAt(ServerName server, List<GroupId> ids) {
    try {
      renew(ids);
    } catch (IOException | RuntimeException e) {
      LOG.warn("G-Store could not renew the leases of {} groups led by {}; next round ({})", ids.size(), server,
          e.toString());
      relocate.addAll(ids);
    } finally {
      calling.remove(server);
    }
  }

  private void renew(List<GroupId> ids) throws IOException {
    Map<GroupId, Hold> sent = new java.util.HashMap<>();
    RenewLeasesRequest.Builder b = RenewLeasesRequest.newBuilder().setHolder(holder);
    for (GroupId id : ids) {
      Hold hold = held.get(id);
      if (hold != null) {
        sent.put(id, hold);
        b.addGroups(LeaderServers.request(id));
      }
    }
    if (sent.isEmpty()) {
      return;
    }
    RenewLeasesResponse response = servers.call(List.copyOf(sent.keySet()),
        service -> service.renewLeases(null, b.build()));
    long now = System.nanoTime();
    for (LeaseAnswerProto a : response.getAnswersList()) {
      GroupId id = LeaderServers.id(a.getGroup());
      Hold hold = sent.get(id);
      if (hold == null || held.get(id) != hold) {
        continue; // released, or held anew (deleted and created again) since this call was sent
      }
      switch (a.getOutcome()) {
        case LEASE_RENEWED -> dueAt.put(id, now + hold.lease.toNanos() / 3);
        case LEASE_NOT_HERE -> relocate.add(id);
        case LEASE_NO_GROUP, LEASE_NO_LEASE -> release(id, hold);
        case LEASE_DENIED -> {
          LOG.warn("G-Store refuses to renew the lease of group {} for this client: renewing takes read and write"
              + " permission on its table; the group lapses unless another client renews it", id);
          release(id, hold);
        }
        default -> LOG.warn("unexpected lease answer for group {}: {}", id, a.getOutcome());
      }
    }
  }

  private void release(GroupId id, Hold hold) {
    if (held.remove(id, hold)) {
      dueAt.remove(id);
    }
  }

  /** Stops renewing; deletes nothing: the groups live until their leases lapse. */
  @Override
  public void close() {
    rounds.shutdownNow();
    calls.shutdownNow();
  }
}
