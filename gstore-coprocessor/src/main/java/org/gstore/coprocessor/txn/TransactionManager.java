package org.gstore.coprocessor.txn;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.RegionTooBusyException;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.Columns;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.CommitResponse;
import org.gstore.common.wire.generated.GStoreProtos.ReadStampProto;
import org.gstore.common.wire.generated.GStoreProtos.RowVersionProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.GStoreProtos.TxnOutcomeProto;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.wal.CommitLog;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.coprocessor.wal.UpdateShipper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.gstore.recovery.Shipment;
import org.gstore.recovery.WalPosition;

/**
 * Serializable transactions on the groups this region server leads, by optimistic concurrency control with
 * backward validation (Kung and Robinson): a transaction reads a snapshot of the leader's cache and records the
 * version of each row it read; its commit succeeds only if none of those rows changed since. A successful commit
 * gets a timestamp above every earlier one of the group and above every member cell in HBase, is made durable in
 * the shared WAL, then applied to the cache and acknowledged, and handed to the update shipper.
 *
 * <p>Commits that HBase would refuse are refused first ({@link CommitValidator}); caches are loaded, closed and
 * forgotten by {@link GroupCaches}.
 *
 * <p>Transactions keep no state here between calls: the client holds the read versions and buffered writes, so
 * a client that disappears leaves nothing behind and blocks nobody. Each commit carries an id; a retried commit
 * gets the first one's outcome.
 */
public final class TransactionManager {
  private static final Logger LOG = LoggerFactory.getLogger(TransactionManager.class);

  private final GStoreMetrics metrics;
  private final CommitLog wal;
  private final UpdateShipper shipper;
  private final GroupCaches caches;
  private final CommitValidator validator;
  private final long waitMillis;
  private final long maxFutureMillis;
  /** The leader's clock, which commit timestamps follow (HBase stamps plain writes with the same one). */
  private final LongSupplier clock;
  private final ExecutorService preloader = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "gstore-cache-preload");
    t.setDaemon(true);
    return t;
  });
  /** Applies commits whose WAL append outlived their caller's wait, once it is durable. */
  private final ExecutorService settler = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "gstore-commit-settle");
    t.setDaemon(true);
    return t;
  });

  /** Outcome of a read: the snapshot, the cache incarnation and the rows, or why not. */
  public record ReadResult(TxnOutcomeProto outcome, long snapshot, long incarnation, List<RowVersionProto> rows,
      String message) {
    static ReadResult failed(TxnOutcomeProto outcome, String message) {
      return new ReadResult(outcome, 0, 0, List.of(), message);
    }
  }

  public TransactionManager(GStoreMetrics metrics, CommitLog wal, UpdateShipper shipper, GroupCaches caches,
      CommitValidator validator, long waitMillis, long maxFutureMillis, LongSupplier clock) {
    this.clock = clock;
    this.metrics = metrics;
    this.wal = wal;
    this.shipper = shipper;
    this.caches = caches;
    this.validator = validator;
    this.waitMillis = waitMillis;
    this.maxFutureMillis = maxFutureMillis;
  }

  /**
   * Reads rows at {@code snapshot} (null: the newest state, which becomes the transaction's snapshot). A
   * transaction's later reads carry the incarnation of its first: if the cache was reloaded since, its snapshot is
   * gone and the read is a conflict.
   */
  public ReadResult read(GroupId id, Long snapshot, long incarnation, List<KeyProto> rows) throws IOException {
    GroupCache cache = caches.get(id);
    if (cache == null) {
      return ReadResult.failed(TxnOutcomeProto.NO_GROUP, "no active group " + id);
    }
    if (snapshot != null && incarnation != cache.incarnation) {
      return ReadResult.failed(TxnOutcomeProto.CONFLICT, reloaded(id));
    }
    long at = snapshot != null ? snapshot : cache.lastCommitTs();
    List<RowVersionProto> result = new ArrayList<>();
    for (KeyProto k : rows) {
      Key key = Requests.key(k);
      if (!cache.isMember(key)) {
        return ReadResult.failed(TxnOutcomeProto.NOT_MEMBER, "row " + key + " is not in group " + id);
      }
      RowState state = cache.at(key, at);
      if (state == null) {
        return ReadResult.failed(TxnOutcomeProto.CONFLICT, "snapshot " + at + " is older than the snapshot"
            + " retention (" + GStoreConfig.SNAPSHOT_RETENTION_MS + ")");
      }
      RowVersionProto.Builder row = RowVersionProto.newBuilder().setKey(k).setVersion(state.version());
      state.columns().forEach((c, v) -> row.addColumns(ColumnProto.newBuilder()
          .setFamily(Columns.family(c)).setQualifier(Columns.qualifier(c)).setValue(v)));
      result.add(row.build());
    }
    return new ReadResult(TxnOutcomeProto.OK, at, cache.incarnation, result, null);
  }

  /**
   * Validates and commits. A transaction that read rows carries the incarnation it read them from; a commit
   * against a later incarnation is a conflict, since the versions it read may not be comparable with the
   * reloaded ones.
   */
  public CommitResponse commit(GroupId id, String txnId, long incarnation, List<ReadStampProto> reads,
      List<RowWriteProto> requested) throws IOException {
    List<RowWriteProto> writes = validator.check(txnId, requested);
    GroupCache cache = caches.get(id);
    if (cache == null) {
      return outcome(TxnOutcomeProto.NO_GROUP, "no active group " + id);
    }
    awaitSettled(cache);
    cache.commitLock.lock();
    long start = System.nanoTime();
    try {
      if (cache.closed() == GroupCache.Closed.REGION_CLOSING) {
        throw GroupCaches.moving(id);
      }
      if (cache.closed() == GroupCache.Closed.RELEASED) {
        return outcome(TxnOutcomeProto.NO_GROUP, "group " + id + " is being deleted");
      }
      CommitResponse earlier = cache.recentOutcome(txnId);
      if (earlier != null) {
        return earlier;
      }
      if (cache.inDoubt() != null) { // another caller's commit went in doubt since we waited
        throw awaitingOutcome(id);
      }
      for (RowWriteProto w : writes) {
        Key key = Requests.key(w.getKey());
        if (!cache.isMember(key)) {
          return outcome(TxnOutcomeProto.NOT_MEMBER, "row " + key + " is not in group " + id);
        }
      }
      if (!reads.isEmpty() && incarnation != cache.incarnation) {
        return conflict(cache, txnId, reloaded(id));
      }
      for (ReadStampProto r : reads) {
        Key key = Requests.key(r.getKey());
        if (!cache.isMember(key)) {
          return outcome(TxnOutcomeProto.NOT_MEMBER, "row " + key + " is not in group " + id);
        }
        if (cache.latest(key).version() != r.getVersion()) {
          return conflict(cache, txnId, "row " + key + " changed since it was read");
        }
      }
      if (writes.isEmpty()) {
        return CommitResponse.newBuilder().setOutcome(TxnOutcomeProto.COMMITTED)
            .setCommitTs(cache.lastCommitTs()).build();
      }
      long commitTs = Math.max(cache.lastCommitTs() + 1, clock.getAsLong());
      WalRecordProto record = WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(cache.group))
          .setCommitTs(commitTs).setTxnId(txnId).addAllWrites(writes).build();
      CompletableFuture<WalPosition> append = wal.append(cache.group, record.toByteArray());
      WalPosition position;
      try {
        position = await(append);
      } catch (IOException e) {
        // the record may be in the log all the same: a commit validated without it could be contradicted by its
        // replay, so the group is left to the leader region's next host, which replays the log first
        cache.close(GroupCache.Closed.REGION_CLOSING);
        throw e;
      }
      if (position == null) { // still being written: the outcome is known, and applied, once it is durable
        cache.markInDoubt(append.handleAsync((p, failure) -> {
          settleLate(cache, txnId, commitTs, writes, p, failure);
          return null;
        }, settler));
        throw new IOException("the G-Store WAL did not make the commit durable within " + waitMillis + " ms ("
            + GStoreConfig.ENDPOINT_WAIT_MS + "); its outcome is unknown. Group " + id + " takes no other commit"
            + " until it is known; a retry of this commit with the same transaction id gets it");
      }
      CommitResponse committed = apply(cache, txnId, commitTs, writes, position);
      metrics.committed(System.nanoTime() - start);
      return committed;
    } finally {
      cache.commitLock.unlock();
    }
  }

  /** Installs a commit durable in the WAL into the cache, ships it and remembers its outcome. With the lock. */
  private CommitResponse apply(GroupCache cache, String txnId, long commitTs, List<RowWriteProto> writes,
      WalPosition position) {
    Map<Key, RowState> states = new HashMap<>();
    for (RowWriteProto w : writes) {
      Key key = Requests.key(w.getKey());
      states.put(key, cache.latest(key).apply(w, commitTs));
    }
    cache.install(states, commitTs, clock.getAsLong());
    shipper.ship(new Shipment(cache.group, commitTs, writes, position));
    CommitResponse committed = CommitResponse.newBuilder().setOutcome(TxnOutcomeProto.COMMITTED)
        .setCommitTs(commitTs).build();
    cache.remember(txnId, committed);
    return committed;
  }

  /**
   * The outcome of a commit whose caller stopped waiting: applied like any commit once durable (no other commit
   * of the group ran meanwhile, so it is still next in order). If the log failed for good (G-Store is stopping,
   * or this server was fenced as dead), the record may or may not be in it: the group is left to the leader
   * region's next host, which replays the log first.
   */
  private void settleLate(GroupCache cache, String txnId, long commitTs, List<RowWriteProto> writes,
      WalPosition position, Throwable failure) {
    cache.commitLock.lock();
    try {
      if (failure == null) {
        apply(cache, txnId, commitTs, writes, position);
        LOG.info("G-Store made commit {} of group {} durable after its caller stopped waiting; applied", txnId,
            cache.group.id());
      } else {
        cache.close(GroupCache.Closed.REGION_CLOSING);
        LOG.error("G-Store's WAL failed with commit {} of group {} in doubt; the group is served again only after"
            + " its log is recovered", txnId, cache.group.id(), failure);
      }
    } catch (RuntimeException e) { // NOPMD: the group must not stay blocked behind a settle that died
      cache.close(GroupCache.Closed.REGION_CLOSING);
      LOG.error("G-Store could not apply commit {} of group {}", txnId, cache.group.id(), e);
    } finally {
      cache.settled();
      cache.commitLock.unlock();
    }
  }

  /**
   * Logs that every commit of the group so far is persisted in HBase, so that a replay of this log does not write
   * them again (see {@code ReplayFilter}). Not waited for: without the mark a replay writes them, as before. None
   * while a commit of the group is quarantined.
   */
  private void logPersisted(GroupCache cache) {
    if (shipper.ledger().hasQuarantined(cache.group)) {
      return; // HBase lacks a commit of the group: a replay must still try it
    }
    byte[] mark = WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(cache.group))
        .setCommitTs(cache.lastCommitTs()).setTxnId("").setPersistedMark(true).build().toByteArray();
    wal.append(cache.group, mark).thenAccept(shipper::logged);
  }

  /** Waits (at most the endpoint wait) for the outcome of a commit of the group that is in doubt. */
  private void awaitSettled(GroupCache cache) throws IOException {
    CompletableFuture<Void> inDoubt = cache.inDoubt();
    if (inDoubt == null) {
      return;
    }
    try {
      inDoubt.get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for an earlier commit of " + cache.group.id());
    } catch (ExecutionException | TimeoutException e) {
      throw awaitingOutcome(cache.group.id());
    }
  }

  private static RegionTooBusyException awaitingOutcome(GroupId id) {
    return new RegionTooBusyException("group " + id + " waits for the outcome of an earlier commit whose WAL append"
        + " is slow; retry");
  }

  private CommitResponse conflict(GroupCache cache, String txnId, String why) {
    CommitResponse conflict = outcome(TxnOutcomeProto.CONFLICT, why);
    cache.remember(txnId, conflict);
    metrics.conflicted();
    return conflict;
  }

  private static String reloaded(GroupId id) {
    return "the leader of group " + id + " reloaded it (a region move, split or restart) since this transaction"
        + " began; retry the transaction";
  }

  /** Loads a new group's cache in the background, so its first transaction does not wait for it. */
  public void preload(GroupId id) {
    preloader.execute(() -> {
      try {
        caches.get(id);
      } catch (IOException | RuntimeException e) {
        LOG.debug("preloading group {} failed; its first transaction loads it ({})", id, e.toString());
      }
    });
  }

  public void close() {
    preloader.shutdownNow();
    settler.shutdownNow();
  }

  /**
   * Stops commits on a group about to be deleted: every later commit is refused, every earlier one is in the WAL
   * and handed to the shipper. Empty if this server has no cache of the group (nothing committed since it loaded).
   * The group's rows must not be released before {@link Release#awaitDurable()} returns.
   */
  public Optional<Release> stopCommits(GroupId id) throws IOException {
    return Optional.ofNullable(caches.release(id)).map(Release::new);
  }

  /** A group whose commits were stopped, on its way to being deleted. */
  public final class Release {
    private final GroupCache cache;

    private Release(GroupCache cache) {
      this.cache = cache;
    }

    /** The incarnation whose commits were stopped. */
    public GroupRef group() {
      return cache.group;
    }

    /**
     * Waits until everything the group committed is shipped to HBase and persisted there, and this server's clock
     * is past its newest commit, so plain writes made after the delete win over the group's. Waits at most the
     * endpoint wait; may be called again after a failure.
     */
    public void awaitDurable() throws IOException {
      awaitSettled(cache);
      shipper.drain(cache.group, waitMillis);
      awaitClockPast(cache);
      logPersisted(cache);
      caches.forget(cache);
    }
  }

  private void awaitClockPast(GroupCache cache) throws IOException {
    long newest = cache.lastCommitTs();
    long deadline = clock.getAsLong() + waitMillis;
    long now;
    while ((now = clock.getAsLong()) <= newest) {
      if (now >= deadline) {
        throw new IOException("group " + cache.group.id() + " has commits stamped up to " + newest + ", "
            + (newest - now) + " ms ahead of this server's clock; its members are released once the clock passes"
            + " it (at most " + maxFutureMillis + " ms, " + GStoreConfig.TXN_MAX_FUTURE_MS + "); retry");
      }
      try {
        TimeUnit.MILLISECONDS.sleep(Math.min(newest - now + 1, deadline - now));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted");
      }
    }
  }

  /**
   * A leader region closes: refuse new commits of its groups (their clients retry at the next host), and ship
   * every commit they made before letting the region go, so the next host loads all of them. Waits as long as
   * shipping takes, saying so loudly: closing with commits unshipped would hide acknowledged commits from the next
   * host. Unless the whole region server is stopping: its other regions are closing too, so commits bound for them
   * cannot land until they open elsewhere, which is after this server is gone; the WAL keeps the commits, and the
   * next host of the group's region replays it before the group serves (as after a crash).
   */
  public void regionClosing(Predicate<Key> inRegion, BooleanSupplier serverStopping) {
    for (GroupCache cache : caches.closeRegion(inRegion)) {
      long started = System.currentTimeMillis();
      while (true) {
        try {
          awaitSettled(cache);
          shipper.drain(cache.group, waitMillis);
          logPersisted(cache);
          break;
        } catch (InterruptedIOException e) {
          LOG.error("interrupted shipping group {} before its leader region closes; {} commits not shipped",
              cache.group.id(), shipper.ledger().pendingCount(cache.group));
          Thread.currentThread().interrupt();
          return;
        } catch (IOException e) {
          if (shipper.isClosed() || serverStopping.getAsBoolean()) {
            LOG.warn("G-Store is stopping with {} commits of group {} not shipped; they are in its WAL, which is"
                + " replayed before the group serves again", shipper.ledger().pendingCount(cache.group), cache.group.id());
            break;
          }
          metrics.closeWaitedForShipping();
          LOG.warn("the leader region of group {} waits for {} commits to be shipped to HBase before it closes"
              + " ({} ms so far)", cache.group.id(), shipper.ledger().pendingCount(cache.group),
              System.currentTimeMillis() - started);
        }
      }
      caches.forget(cache);
    }
  }

  /** The record's position once durable; null if it is not within the endpoint wait. */
  private WalPosition await(CompletableFuture<WalPosition> append) throws IOException {
    try {
      return append.get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted writing the WAL");
    } catch (ExecutionException e) {
      throw new IOException("the G-Store WAL could not make the commit durable; its outcome is unknown",
          e.getCause());
    } catch (TimeoutException e) {
      return null;
    }
  }

  private static CommitResponse outcome(TxnOutcomeProto outcome, String message) {
    return CommitResponse.newBuilder().setOutcome(outcome).setMessage(message).build();
  }
}
