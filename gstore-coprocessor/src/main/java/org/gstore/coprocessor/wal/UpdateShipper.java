package org.gstore.coprocessor.wal;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Durability;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.recovery.Watermark;
import org.gstore.common.wire.OwnerToken;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.coprocessor.server.BatchingThread;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies committed transactions to HBase asynchronously, with each commit's timestamp as the cells' timestamp,
 * so re-applying a commit is harmless ({@link CommitApplier}). Everything waiting is shipped in one batch per
 * table; a failed batch is retried until it succeeds, since until then the commit lives only in the WAL.
 *
 * <p><b>Until persisted, a commit is held.</b> Shipments are numbered, in order, by the one shipping thread; the
 * last acknowledged number is T_F. With {@code SYNC_WAL} a shipped commit is persisted in HBase's WAL when HBase
 * acknowledges it. With {@code ASYNC_WAL} it is not yet: the shipper keeps it until every region server has
 * claimed (T_P) a shipment number at or above its own ({@link #forgetPersistedThrough}), and ships it again if a
 * server that may have lost it dies ({@link #shipAgainAbove}). A commit shipped again gets a new number, so a claim
 * made before it arrived does not cover it. Deletes and leader-region closes wait until their group's commits are
 * no longer held, persisting the group's last ones themselves ({@link #drain}). The WAL keeps every record the
 * shipper has not yet seen or still holds ({@link #walNeededAbove}).
 *
 * <p>A commit that HBase refuses for good (a {@link DoNotRetryIOException}: its column family or table was dropped
 * after it committed, say) must not stop everyone else's: the batch is then shipped one commit at a time, and a
 * commit refused on its own is <em>quarantined</em>: logged as an error with its WAL position, counted
 * ({@code shipperQuarantined}, the number quarantined now), no longer waited for by deletes and region closes, kept
 * in the WAL, and shipped again every {@link #QUARANTINE_RETRY_MILLIS} ({@link #retryQuarantined}), so that it
 * lands once its cause is fixed (a family added back, a quota raised). It is never dropped.
 */
public final class UpdateShipper implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(UpdateShipper.class);
  /** How often quarantined commits are shipped again. */
  public static final long QUARANTINE_RETRY_MILLIS = 60_000;

  /** One committed transaction to apply. */
  public record Shipment(GroupRef group, long commitTs, List<RowWriteProto> writes, SharedWal.Position position) {}

  /** A commit handed over, and when it may be shipped. */
  private record Held(Shipment shipment, long shippableAt) {}

  private final CommitSink sink;
  /** Writes a draining group's unpersisted commits again, persisted (ASYNC_WAL only). */
  private final CommitSink persistingSink;
  private final boolean persistedWhenShipped;
  private final BatchingThread<Held> thread;
  private final long delayMillis;
  /** Commits to ship (again), oldest first. */
  private final LinkedHashSet<Shipment> queued = new LinkedHashSet<>();
  /** ASYNC_WAL: shipped commits not yet known persisted, with the number of their latest shipment. */
  private final LinkedHashMap<Shipment, Long> unpersisted = new LinkedHashMap<>();
  private final Map<GroupRef, Integer> heldPerGroup = new HashMap<>();
  /** Per WAL stream: the records the shipper has been handed. */
  private final Watermark[] handedOver;
  /** Per WAL stream: records held (queued, unpersisted or quarantined): the WAL keeps them. */
  private final List<TreeSet<Long>> heldSeqs = new ArrayList<>();
  private long nextShipment;
  private long shippedThrough = -1;
  /** Commits HBase refused for good, oldest first: the WAL keeps them, and they are shipped again now and then. */
  private final LinkedHashSet<Shipment> quarantined = new LinkedHashSet<>();
  private long lastQuarantineRetry = Long.MIN_VALUE;
  private long shippedAgain;
  private long persistedOnDrain;

  public UpdateShipper(Connection connection, OwnerToken tokens, Durability durability, int streams) {
    this(connection, tokens, durability, streams, 0);
  }

  /** @param delayMillis test-only: how long every commit is held before it is shipped (0 in production) */
  public UpdateShipper(Connection connection, OwnerToken tokens, Durability durability, int streams,
      long delayMillis) {
    this(new CommitApplier(connection, tokens, durability), new CommitApplier(connection, tokens, Durability.SYNC_WAL),
        durability == Durability.SYNC_WAL || durability == Durability.FSYNC_WAL, streams, delayMillis);
  }

  /**
   * @param sink where commits are shipped
   * @param persistingSink where a drain writes a group's unpersisted commits again, persisted when it returns
   * @param persistedWhenShipped whether {@code sink} persists what it acknowledges (SYNC_WAL): nothing is held
   */
  public UpdateShipper(CommitSink sink, CommitSink persistingSink, boolean persistedWhenShipped, int streams,
      long delayMillis) {
    this.sink = sink;
    this.persistingSink = persistingSink;
    this.persistedWhenShipped = persistedWhenShipped;
    this.handedOver = new Watermark[streams];
    for (int i = 0; i < streams; i++) {
      handedOver[i] = new Watermark();
      heldSeqs.add(new TreeSet<>());
    }
    this.delayMillis = delayMillis;
    this.thread = new BatchingThread<>("gstore-shipper", this::shipWhenDue);
  }

  /** Hands over a commit that is durable in the WAL at {@code s.position()}. */
  public synchronized void ship(Shipment s) {
    heldPerGroup.merge(s.group(), 1, Integer::sum);
    int stream = s.position().stream();
    heldSeqs.get(stream).add(s.position().seq());
    handedOver[stream].mark(s.position().seq());
    queued.add(s);
    thread.add(new Held(s, System.currentTimeMillis() + delayMillis));
  }

  /**
   * A record that is not a commit (a persisted mark) is durable in the WAL at {@code position}: the WAL need not
   * keep it for the shipper, and the records after it must not wait for it.
   */
  public synchronized void logged(SharedWal.Position position) {
    handedOver[position.stream()].mark(position.seq());
  }

  /**
   * Waits until every commit of {@code group} handed over so far is in HBase and persisted there. With
   * {@code ASYNC_WAL} it does not wait for the servers' claims: once the group's commits are shipped, it writes the
   * unpersisted ones again with {@code SYNC_WAL} (idempotent), which persists each write at whichever server hosts
   * its row now, the original copy's server or the one that took the region over.
   */
  public void drain(GroupRef group, long timeoutMillis) throws IOException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    while (true) {
      List<Shipment> unpersistedOfGroup = new ArrayList<>();
      synchronized (this) {
        while (heldPerGroup.getOrDefault(group, 0) > 0 && queuedOf(group) > 0) {
          awaitUntil(deadline, group, "shipped to HBase");
        }
        if (heldPerGroup.getOrDefault(group, 0) == 0) {
          return;
        }
        unpersisted.keySet().stream().filter(s -> s.group().equals(group)).forEach(unpersistedOfGroup::add);
      }
      if (!unpersistedOfGroup.isEmpty()) {
        persistingSink.apply(unpersistedOfGroup);
        synchronized (this) {
          for (Shipment s : unpersistedOfGroup) {
            if (unpersisted.remove(s) != null) { // else it is being shipped again: the next round waits for it
              release(s);
            }
          }
          persistedOnDrain += unpersistedOfGroup.size();
          notifyAll();
        }
      } else {
        synchronized (this) {
          awaitUntil(deadline, group, "persisted in HBase's WAL");
        }
      }
    }
  }

  private void awaitUntil(long deadline, GroupRef group, String what) throws IOException {
    long left = deadline - System.currentTimeMillis();
    if (left <= 0 || thread.isClosed()) {
      throw new IOException("commits of group " + group.id() + " are not all " + what + " yet");
    }
    try {
      wait(left);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted draining " + group.id());
    }
  }

  /** T_F: every shipment numbered up to this one is acknowledged by HBase (-1: none yet). */
  public synchronized long shippedThrough() {
    return shippedThrough;
  }

  /** Every region server has persisted what it was shipped up to shipment {@code through}: stop holding it. */
  public synchronized void forgetPersistedThrough(long through) {
    var it = unpersisted.entrySet().iterator();
    while (it.hasNext()) {
      var e = it.next();
      if (e.getValue() <= through) {
        it.remove();
        release(e.getKey());
      }
    }
    notifyAll();
  }

  /** A region server died that had persisted our shipments up to {@code through}: ship the later ones again. */
  public synchronized int shipAgainAbove(long through) {
    List<Shipment> again = new ArrayList<>();
    unpersisted.forEach((s, number) -> {
      if (number > through) {
        again.add(s);
      }
    });
    for (Shipment s : again) {
      unpersisted.remove(s);
      queued.add(s);
      thread.add(new Held(s, 0));
    }
    shippedAgain += again.size();
    return again.size();
  }

  /**
   * The WAL of {@code stream} must keep the records above this sequence number: every record up to it was seen
   * by the shipper and is neither waiting to ship, nor unpersisted, nor quarantined.
   */
  public synchronized long walNeededAbove(int stream) {
    TreeSet<Long> held = heldSeqs.get(stream);
    long seen = handedOver[stream].through();
    return held.isEmpty() ? seen : Math.min(seen, held.first() - 1);
  }

  /** Commits handed over and not yet persisted in HBase (quarantined ones aside). */
  public synchronized int pendingCount() {
    return heldPerGroup.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** Commits of {@code group} handed over and not yet persisted in HBase. */
  public synchronized int pendingCount(GroupRef group) {
    return heldPerGroup.getOrDefault(group, 0);
  }

  /** Shipped commits waiting to be known persisted (ASYNC_WAL). */
  public synchronized int unpersistedCount() {
    return unpersisted.size();
  }

  /** Commits HBase refused for good and not shipped since (see the class comment). */
  public synchronized long quarantinedCount() {
    return quarantined.size();
  }

  /** Whether a commit of {@code group} is quarantined now (HBase does not have it). */
  public synchronized boolean hasQuarantined(GroupRef group) {
    return quarantined.stream().anyMatch(s -> s.group().equals(group));
  }

  /**
   * Ships the quarantined commits again if {@link #QUARANTINE_RETRY_MILLIS} passed since the last time: those whose
   * cause was fixed land and are held as any shipped commit; the others are quarantined again. Returns how many were
   * shipped again.
   */
  public synchronized int retryQuarantined(long now) {
    if (quarantined.isEmpty() || (lastQuarantineRetry != Long.MIN_VALUE
        && now - lastQuarantineRetry < QUARANTINE_RETRY_MILLIS)) {
      return 0;
    }
    lastQuarantineRetry = now;
    int again = quarantined.size();
    for (Shipment s : quarantined) {
      heldPerGroup.merge(s.group(), 1, Integer::sum);
      queued.add(s);
      thread.add(new Held(s, 0));
    }
    quarantined.clear();
    return again;
  }

  /** Commits shipped again because a region server that may have lost them died. */
  public synchronized long shippedAgainCount() {
    return shippedAgain;
  }

  /** ASYNC_WAL: commits written again with SYNC_WAL because their group was deleted or its region closed. */
  public synchronized long persistedOnDrainCount() {
    return persistedOnDrain;
  }

  public boolean isClosed() {
    return thread.isClosed();
  }

  /** How far behind the shipper is, in milliseconds of commit time (0 when nothing waits). */
  public synchronized long lagMillis(long now) {
    return queued.isEmpty() ? 0 : Math.max(0, now - queued.iterator().next().commitTs());
  }

  private int queuedOf(GroupRef group) {
    return (int) queued.stream().filter(s -> s.group().equals(group)).count();
  }

  /** Holds the batch until its newest commit is due (at once, unless a test set a delay), then ships it. */
  private void shipWhenDue(List<Held> held) {
    long wait = held.get(held.size() - 1).shippableAt() - System.currentTimeMillis();
    if (wait > 0) {
      try {
        TimeUnit.MILLISECONDS.sleep(wait);
      } catch (InterruptedException e) {
        return; // closing: the WAL keeps what was not shipped
      }
    }
    List<Shipment> batch = new ArrayList<>(held.size());
    held.forEach(h -> batch.add(h.shipment()));
    if (!shipUnlessRefused(batch)) {
      for (Shipment s : batch) {
        if (!shipUnlessRefused(List.of(s))) {
          quarantine(s);
        }
      }
    }
  }

  /**
   * Ships {@code batch}, retrying while the failures may pass. False if HBase refused it for good; true once
   * shipped (or when the shipper closes: the WAL keeps what was not shipped).
   */
  private boolean shipUnlessRefused(List<Shipment> batch) {
    long backoff = 50;
    while (!thread.isClosed()) {
      try {
        sink.apply(batch);
        shipped(batch);
        return true;
      } catch (IOException e) {
        if (CommitApplier.refusedForGood(e)) {
          LOG.warn("HBase refused {} G-Store commits for good ({}); shipping them one by one", batch.size(),
              e.toString());
          return false;
        }
        LOG.warn("G-Store could not ship {} commits; retrying in {} ms", batch.size(), backoff, e);
        try {
          TimeUnit.MILLISECONDS.sleep(backoff);
        } catch (InterruptedException ie) {
          return true;
        }
        backoff = Math.min(backoff * 2, 2_000);
      }
    }
    return true;
  }

  /** HBase acknowledged the batch: number its shipments (T_F passes them) and hold them until persisted. */
  private synchronized void shipped(List<Shipment> batch) {
    for (Shipment s : batch) {
      long number = nextShipment++;
      queued.remove(s);
      if (persistedWhenShipped) {
        release(s);
      } else {
        unpersisted.put(s, number);
      }
    }
    shippedThrough = nextShipment - 1;
    notifyAll();
  }

  private synchronized void quarantine(Shipment s) {
    LOG.error("G-Store QUARANTINED a commit of group {} (commit timestamp {}, WAL stream {} record {}): HBase"
        + " refuses its writes for good, so it is not shipped; it stays in the WAL for an operator, see"
        + " docs/operations.md", s.group().id(), s.commitTs(), s.position().stream(), s.position().seq());
    quarantined.add(s);
    queued.remove(s);
    heldPerGroup.computeIfPresent(s.group(), (g, n) -> n == 1 ? null : n - 1); // the WAL keeps its record
    notifyAll();
  }

  private void release(Shipment s) {
    heldPerGroup.computeIfPresent(s.group(), (g, n) -> n == 1 ? null : n - 1);
    heldSeqs.get(s.position().stream()).remove(s.position().seq());
  }

  @Override
  public void close() {
    thread.close();
    synchronized (this) {
      notifyAll();
    }
  }
}
