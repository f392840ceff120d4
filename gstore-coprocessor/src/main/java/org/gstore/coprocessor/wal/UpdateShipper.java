package org.gstore.coprocessor.wal;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Durability;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.wire.OwnerToken;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.coprocessor.server.BatchingThread;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies committed transactions to HBase asynchronously, in commit order, with each commit's timestamp as the
 * cells' timestamp, so re-applying a commit is harmless. Writes carry the owning group's token to pass fencing.
 * Everything waiting is shipped in one batch per table; a failed batch is retried until it succeeds, since until
 * then the commit lives only in the WAL.
 *
 * <p>A commit that HBase refuses for good (a {@link DoNotRetryIOException}: its column family or table was dropped
 * after it committed, say) must not stop everyone else's: the batch is then shipped one commit at a time, and a
 * commit refused on its own is <em>quarantined</em>: logged as an error with its WAL position, counted
 * ({@code shipperQuarantined}), no longer waited for by deletes and region closes, and kept in the WAL (T_F stops
 * below it) for an operator.
 *
 * <p>Tracks, per WAL stream, the sequence number below which every commit is shipped: T_F of the recovery paper.
 */
public final class UpdateShipper implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(UpdateShipper.class);

  /** One committed transaction to apply. */
  public record Shipment(GroupRef group, long commitTs, List<RowWriteProto> writes, SharedWal.Position position) {}

  private final CommitApplier applier;
  private final List<Shipment> queued = new java.util.LinkedList<>();
  private final Map<GroupRef, Integer> pendingPerGroup = new HashMap<>();
  /** Per WAL stream: every record up to this sequence number has left the queue (shipped or quarantined). */
  private final long[] doneThrough;
  /** Per WAL stream: records that left the queue above {@link #doneThrough}, waiting for the gap below them. */
  private final List<TreeSet<Long>> doneAhead = new ArrayList<>();
  /** Per WAL stream: quarantined records; T_F stays below the first. */
  private final List<TreeSet<Long>> stuck = new ArrayList<>();
  private final BatchingThread<Held> thread;
  private final long delayMillis;
  private long quarantined;

  /** A commit handed over, and when it may be shipped. */
  private record Held(Shipment shipment, long shippableAt) {}

  public UpdateShipper(Connection connection, OwnerToken tokens, Durability durability, int streams) {
    this(connection, tokens, durability, streams, 0);
  }

  /** @param delayMillis test-only: how long every commit is held before it is shipped (0 in production) */
  public UpdateShipper(Connection connection, OwnerToken tokens, Durability durability, int streams,
      long delayMillis) {
    this.applier = new CommitApplier(connection, tokens, durability);
    this.doneThrough = new long[streams];
    java.util.Arrays.fill(doneThrough, -1);
    for (int i = 0; i < streams; i++) {
      doneAhead.add(new TreeSet<>());
      stuck.add(new TreeSet<>());
    }
    this.delayMillis = delayMillis;
    this.thread = new BatchingThread<>("gstore-shipper", this::shipWhenDue);
  }

  public synchronized void ship(Shipment s) {
    pendingPerGroup.merge(s.group(), 1, Integer::sum);
    queued.add(s);
    thread.add(new Held(s, System.currentTimeMillis() + delayMillis));
  }

  /** Waits until every commit of {@code group} handed over so far is in HBase. */
  public synchronized void drain(GroupRef group, long timeoutMillis) throws IOException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    while (pendingPerGroup.getOrDefault(group, 0) > 0) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0 || thread.isClosed()) {
        throw new IOException("commits of group " + group.id() + " are not all shipped to HBase yet");
      }
      try {
        wait(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted draining " + group.id());
      }
    }
  }

  /**
   * T_F of a WAL stream: every record with a sequence number up to this one is shipped (-1: none yet). Sequence
   * numbers of a stream are dense, so a record that is durable but not yet handed over (its commit thread is
   * slower than another's in the same WAL batch) holds T_F below it.
   */
  public synchronized long shippedThrough(int stream) {
    TreeSet<Long> quarantined = stuck.get(stream);
    return quarantined.isEmpty() ? doneThrough[stream] : Math.min(doneThrough[stream], quarantined.first() - 1);
  }

  /** Commits handed over but not yet in HBase. */
  public synchronized int pendingCount() {
    return pendingPerGroup.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** Commits of {@code group} handed over but not yet in HBase. */
  public synchronized int pendingCount(GroupRef group) {
    return pendingPerGroup.getOrDefault(group, 0);
  }

  /** Commits HBase refused for good since this server started (see the class comment). */
  public synchronized long quarantinedCount() {
    return quarantined;
  }

  public boolean isClosed() {
    return thread.isClosed();
  }

  /** How far behind the shipper is, in milliseconds of commit time (0 when nothing waits). */
  public synchronized long lagMillis(long now) {
    return queued.isEmpty() ? 0 : Math.max(0, now - queued.get(0).commitTs());
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
    shipUntilApplied(batch);
  }

  private void shipUntilApplied(List<Shipment> batch) {
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
        applier.apply(batch);
        for (Shipment s : batch) {
          done(s, true);
        }
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

  private void quarantine(Shipment s) {
    LOG.error("G-Store QUARANTINED a commit of group {} (commit timestamp {}, WAL stream {} record {}): HBase"
        + " refuses its writes for good, so it is not shipped; it stays in the WAL (T_F stops below it) for an"
        + " operator, see docs/operations.md", s.group().id(), s.commitTs(), s.position().stream(),
        s.position().seq());
    done(s, false);
  }

  /** A commit left the queue: shipped, or quarantined (then T_F of its stream stays below it). Queue order. */
  private synchronized void done(Shipment s, boolean applied) {
    pendingPerGroup.computeIfPresent(s.group(), (g, n) -> n == 1 ? null : n - 1);
    int stream = s.position().stream();
    if (!applied) {
      quarantined++;
      stuck.get(stream).add(s.position().seq());
    }
    TreeSet<Long> ahead = doneAhead.get(stream);
    ahead.add(s.position().seq());
    while (!ahead.isEmpty() && ahead.first() == doneThrough[stream] + 1) {
      doneThrough[stream] = ahead.pollFirst();
    }
    queued.remove(0);
    notifyAll();
  }

  @Override
  public void close() {
    thread.close();
    synchronized (this) {
      notifyAll();
    }
  }
}
