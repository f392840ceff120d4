package org.gstore.coprocessor.wal;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Durability;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.wire.OwnerToken;
import org.gstore.coprocessor.concurrent.BatchingThread;
import org.gstore.recovery.CommitSink;
import org.gstore.recovery.Shipment;
import org.gstore.recovery.ShipmentLedger;
import org.gstore.recovery.WalPosition;
import org.gstore.recovery.hbase.CommitApplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies committed transactions to HBase asynchronously, with each commit's timestamp as the cells' timestamp,
 * so re-applying a commit is harmless ({@link CommitApplier}). Everything waiting is shipped in one batch per
 * table; a failed batch is retried until it succeeds, since until then the commit lives only in the WAL. What is
 * held and why (numbered shipments, T_F, claims, shipping again, quarantine) is the {@link ShipmentLedger}'s, which
 * the persistence heartbeat works on; this class is the thread and the HBase client that do the shipping, and the
 * drain that deletes and leader-region closes wait on ({@link #drain}).
 *
 * <p>A commit that HBase refuses for good (a {@link org.apache.hadoop.hbase.DoNotRetryIOException}: its column
 * family or table was dropped after it committed, say) must not stop everyone else's: the batch is then shipped one
 * commit at a time, and a commit refused on its own is quarantined ({@link ShipmentLedger#refused}), with the later
 * commits of its group behind it ({@link ShipmentLedger#quarantineBehindEarlier}).
 */
public final class UpdateShipper implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(UpdateShipper.class);

  /**
   * A commit handed over, when it may be shipped, and whether it ships alone (its batch threw unexpectedly: a
   * commit that throws on its own is quarantined rather than thrown on with every batch).
   */
  private record Held(Shipment shipment, long shippableAt, boolean alone) {
    Held(Shipment shipment, long shippableAt) {
      this(shipment, shippableAt, false);
    }
  }

  private final CommitSink sink;
  /** Writes a draining group's unpersisted commits again, persisted (ASYNC_WAL only). */
  private final CommitSink persistingSink;
  private final BatchingThread<Held> thread;
  private final long delayMillis;
  private final ShipmentLedger ledger;

  public UpdateShipper(Connection connection, OwnerToken tokens, Durability durability, int streams) {
    this(connection, tokens, durability, streams, 0);
  }

  /** @param delayMillis test-only: how long every commit is held before it is shipped (0 in production) */
  public UpdateShipper(Connection connection, OwnerToken tokens, Durability durability, int streams,
      long delayMillis) {
    this(new CommitApplier(connection, tokens, durability), CommitApplier.persistingShipped(connection, tokens),
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
    this.delayMillis = delayMillis;
    this.thread = new BatchingThread<>("gstore-shipper", this::shipWhenDue, this::shipAgainLater);
    this.ledger = new ShipmentLedger(persistedWhenShipped, streams, s -> thread.add(new Held(s, 0)));
  }

  /** What this shipper holds and why. */
  public ShipmentLedger ledger() {
    return ledger;
  }

  /** Hands over a commit that is durable in the WAL at {@code s.position()}. */
  public void ship(Shipment s) {
    ledger.handOver(s);
    thread.add(new Held(s, System.currentTimeMillis() + delayMillis));
  }

  /** See {@link ShipmentLedger#logged}. */
  public void logged(WalPosition position) {
    ledger.logged(position);
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
      List<Shipment> unpersistedOfGroup;
      synchronized (ledger) {
        while (ledger.pendingCount(group) > 0 && ledger.queuedCount(group) > 0) {
          awaitUntil(deadline, group, "shipped to HBase");
        }
        if (ledger.pendingCount(group) == 0) {
          return;
        }
        unpersistedOfGroup = ledger.unpersistedOf(group);
        if (unpersistedOfGroup.isEmpty()) {
          awaitUntil(deadline, group, "persisted in HBase's WAL");
          continue;
        }
      }
      persistingSink.apply(unpersistedOfGroup);
      ledger.persistedOnDrain(unpersistedOfGroup);
    }
  }

  /**
   * Waits until every commit of {@code group} stamped at or before {@code commitTs} is in HBase with its outcome
   * row ({@link ShipmentLedger#shippedThrough(GroupRef, long)}), at most {@code timeoutMillis}; later commits are
   * not waited for, so a busy group cannot keep this waiting.
   */
  public void awaitShipped(GroupRef group, long commitTs, long timeoutMillis) throws IOException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    synchronized (ledger) {
      while (!ledger.shippedThrough(group, commitTs)) {
        awaitUntil(deadline, group, "shipped to HBase");
      }
    }
  }

  /** Waits on the ledger, whose monitor the caller holds, until it changes or the deadline passes. */
  private void awaitUntil(long deadline, GroupRef group, String what) throws IOException {
    long left = deadline - System.currentTimeMillis();
    if (left <= 0 || thread.isClosed()) {
      java.util.Optional<String> quarantined = ledger.quarantineCause(group);
      if (quarantined.isPresent()) {
        throw new IOException(quarantinedMessage(group, quarantined.get()));
      }
      throw new IOException("commits of group " + group.id() + " are not all " + what + " yet");
    }
    try {
      ledger.wait(left);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted draining " + group.id());
    }
  }

  /**
   * Why the group waits: a commit of it is quarantined ({@code because}: HBase's refusal), and what to do. Every
   * caller held back by the quarantine says this.
   */
  public String quarantinedMessage(GroupRef group, String because) {
    return "a commit of group " + group.id() + " is quarantined: HBase refuses its writes for good (" + because
        + "). The group takes no commit, release or region move until it lands; it is shipped again every "
        + ledger.quarantineRetryMillis() / 1000 + " s. Fix the cause (a dropped column family, a space"
        + " quota, a table's coprocessor removed); see docs/operations.md, \"Quarantined commits\"";
  }

  public boolean isClosed() {
    return thread.isClosed();
  }

  /**
   * A batch the shipping threw on unexpectedly (an {@code Error}, a bug) is shipped again a second later, one
   * commit at a time: its commits must not be stranded, held for ever with nothing to ship them (and, behind a
   * quarantined one, the rest of their group with them), and one that throws on its own must not stop every
   * batch it joins. Those that landed or were quarantined before it threw are not shipped again.
   */
  private void shipAgainLater(List<Held> batch, Throwable failure) {
    long at = System.currentTimeMillis() + 1_000;
    batch.stream().filter(h -> ledger.waitsToShip(h.shipment()))
        .forEach(h -> thread.add(new Held(h.shipment(), at, true)));
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
    List<Shipment> batch = new ArrayList<>(ledger.waitingAmong(held.stream().map(Held::shipment).toList()));
    if (held.stream().anyMatch(Held::alone)) { // a batch threw unexpectedly: everything one by one this time
      shipOneByOne(batch);
      return;
    }
    // a group's commits land in commit order: none ships past an earlier one of its group that HBase refused. Only
    // this thread quarantines, so with none quarantined now none can be by the time the batch is sent
    if (!ledger.quarantineEmpty()) {
      Set<Shipment> inBatch = new HashSet<>(batch);
      batch.removeIf(s -> ledger.quarantineBehindEarlier(s, inBatch));
    }
    if (!batch.isEmpty() && shipUnlessRefused(batch) != null) {
      shipOneByOne(batch);
    }
  }

  /**
   * Ships each commit on its own, oldest first (each earlier one has landed or been quarantined by the time the
   * next ships): a commit HBase refuses for good, or that the shipping throws on by itself, is quarantined.
   */
  private void shipOneByOne(List<Shipment> batch) {
    batch.sort(Comparator.comparingLong(Shipment::commitTs));
    for (Shipment s : batch) {
      if (ledger.quarantineBehindEarlier(s, Set.of())) {
        continue;
      }
      try {
        IOException refusal = shipUnlessRefused(List.of(s));
        if (refusal != null) {
          ledger.refused(s, refusal.toString());
        }
      } catch (RuntimeException e) { // NOPMD: a bad commit is quarantined, not thrown on with every batch
        LOG.error("G-Store's shipper fails on a commit of group {} (commit timestamp {}) by itself",
            s.group().id(), s.commitTs(), e);
        ledger.refused(s, "the shipper fails on it: " + e);
      }
    }
  }

  /**
   * Ships {@code batch}, retrying while the failures may pass. Returns HBase's refusal if it refused the batch for
   * good; null once shipped (or when the shipper closes: the WAL keeps what was not shipped).
   */
  private IOException shipUnlessRefused(List<Shipment> batch) {
    long backoff = 50;
    while (!thread.isClosed()) {
      try {
        long sentAt = ledger.epoch();
        sink.apply(batch);
        ledger.shipped(batch, sentAt);
        return null;
      } catch (IOException e) {
        if (CommitApplier.refusedForGood(e)) {
          LOG.warn("HBase refused {} G-Store commits for good ({}); shipping them one by one", batch.size(),
              e.toString());
          return e;
        }
        LOG.warn("G-Store could not ship {} commits; retrying in {} ms", batch.size(), backoff, e);
        try {
          TimeUnit.MILLISECONDS.sleep(backoff);
        } catch (InterruptedException ie) {
          return null;
        }
        backoff = Math.min(backoff * 2, 2_000);
      }
    }
    return null;
  }

  @Override
  public void close() {
    thread.close();
    ledger.wakeAll();
  }
}
