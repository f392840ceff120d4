package org.gstore.coprocessor.txn;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.RegionTooBusyException;
import org.gstore.common.CommitRefusedException;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.config.TestPlant;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.wal.CommitLog;
import org.gstore.coprocessor.wal.UpdateShipper;
import org.gstore.recovery.CommittedTxns;
import org.gstore.recovery.Shipment;
import org.gstore.recovery.WalPosition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serializable transactions on the groups this region server leads, by optimistic concurrency control with
 * backward validation (Kung and Robinson): a transaction reads a snapshot of the leader's cache and records the
 * version of each row it read; its commit succeeds only if none of those rows changed since. A successful commit
 * gets a timestamp above every earlier one of the group and above every member cell in HBase, is made durable in
 * the {@link CommitLog}, then applied to the cache and acknowledged, and handed to the {@link UpdateShipper}.
 *
 * <p>Commits that HBase would refuse are refused first ({@link CommitValidator}); caches are loaded, closed and
 * forgotten by {@link GroupCaches}; a group leaves this server through {@link GroupHandover}.
 *
 * <p>Transactions keep no state here between calls: the client holds the read versions and buffered writes, so
 * a client that disappears leaves nothing behind and blocks nobody. Each commit carries an id; a retried commit
 * gets the first one's outcome, whichever leader it reaches: the outcome is remembered by the cache that committed
 * it and recorded durably with the commit's shipment ({@link CommittedTxns}), which a leader asks when its memory
 * cannot tell (see {@link GroupCache#remembersEveryCommitAfter}). A write set is kept in the form the log records it ({@link RowWriteProto}): it is
 * logged, applied and shipped as it came, never converted.
 */
public final class TransactionManager {
  private static final Logger LOG = LoggerFactory.getLogger(TransactionManager.class);

  private final GStoreMetrics metrics;
  private final CommitLog wal;
  private final UpdateShipper shipper;
  private final GroupCaches caches;
  private final CommitValidator validator;
  /** False only on a test cluster with {@link TestPlant#SKIP_VALIDATION} planted. */
  private final boolean checksReads;
  private final CommittedTxns committed;
  private final OutcomeLookups lookups;
  private final long waitMillis;
  /** The leader's clock, which commit timestamps follow (HBase stamps plain writes with the same one). */
  private final LongSupplier clock;
  /** Applies commits whose WAL append outlived their caller's wait, once it is durable. */
  private final ExecutorService settler = Executors.newSingleThreadExecutor(r -> daemon(r, "gstore-commit-settle"));

  /**
   * @param waitMillis how long a call waits for the log before its outcome is unknown ({@code
   *     gstore.endpoint.wait.ms})
   */
  public TransactionManager(GStoreMetrics metrics, CommitLog wal, UpdateShipper shipper, GroupCaches caches,
      CommitValidator validator, CommittedTxns committed, long waitMillis, LongSupplier clock) {
    this(metrics, wal, shipper, caches, validator, committed, waitMillis, clock, TestPlant.NONE);
  }

  /** @param plant a defect planted on a test cluster: {@link TestPlant#SKIP_VALIDATION} commits reads unchecked */
  public TransactionManager(GStoreMetrics metrics, CommitLog wal, UpdateShipper shipper, GroupCaches caches,
      CommitValidator validator, CommittedTxns committed, long waitMillis, LongSupplier clock, TestPlant plant) {
    this.metrics = metrics;
    this.wal = wal;
    this.shipper = shipper;
    this.caches = caches;
    this.validator = validator;
    this.committed = committed;
    this.lookups = new OutcomeLookups(shipper, committed, waitMillis);
    this.waitMillis = waitMillis;
    this.clock = clock;
    this.checksReads = plant != TestPlant.SKIP_VALIDATION;
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * Reads rows at {@code snapshot} (null: the newest state, which becomes the transaction's snapshot). A
   * transaction's later reads carry the incarnation of its first: if the cache was reloaded since, its snapshot is
   * gone and the read is a conflict.
   */
  public ReadResult read(GroupId id, Long snapshot, long incarnation, List<Key> rows) throws IOException {
    GroupCache cache = caches.get(id);
    if (cache == null) {
      return ReadResult.failed(TxnOutcome.NO_GROUP, "no active group " + id);
    }
    if (snapshot != null && incarnation != cache.incarnation) {
      return ReadResult.failed(TxnOutcome.CONFLICT, reloaded(id));
    }
    long at = snapshot != null ? snapshot : cache.lastCommitTs();
    List<RowState> result = new ArrayList<>(rows.size());
    for (Key key : rows) {
      if (!cache.isMember(key)) {
        return ReadResult.failed(TxnOutcome.NOT_MEMBER, "row " + key + " is not in group " + id);
      }
      RowState state = cache.at(key, at);
      if (state == null) {
        return ReadResult.failed(TxnOutcome.CONFLICT, "snapshot " + at + " is older than the snapshot"
            + " retention (" + GStoreConfig.SNAPSHOT_RETENTION_MS + ")");
      }
      result.add(state);
    }
    return new ReadResult(TxnOutcome.OK, at, cache.incarnation, result, null);
  }

  /** Admits a commit that has no outcome yet (the endpoint's authorization); throws if it may not be made. */
  @FunctionalInterface
  public interface Admission {
    void admit() throws IOException;
  }

  /**
   * Validates and commits, unless the transaction already has an outcome: then that is the answer, whatever else
   * changed since its first attempt (permissions, the schema, the group). A transaction that read rows carries the
   * incarnation it read them from; a commit against a later incarnation is a conflict, since the versions it read
   * may not be comparable with the reloaded ones. A refusal ({@link CommitRefusedException},
   * {@link org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException}, an authorization failure) and every
   * answer but {@code COMMITTED} mean that no attempt of the transaction took effect, nor will.
   *
   * @param seenIncarnation the incarnation of the newest answer about the group the client had before it first
   *     sent this commit (0: none), and {@code seenTs} the commit timestamp (or snapshot) in that answer: any commit
   *     of this transaction is stamped above it
   * @param admission checks the caller may make this commit; run only if the transaction has no outcome yet
   * @throws IOException if the outcome is unknown (the log did not answer within the wait, or failed: then the
   *     group takes no other commit until it is known, and a retry with the same {@code txnId} learns it), or the
   *     group's leader region is closing (the client retries at its next host)
   */
  public CommitOutcome commit(GroupId id, String txnId, long seenIncarnation, long seenTs, List<ReadStamp> reads,
      List<RowWriteProto> requested, Admission admission) throws IOException {
    CommitValidator.checkTxnId(txnId); // an id no commit can have: nothing to look up
    IOException refusal = null; // thrown only once the transaction is known to have no outcome
    List<RowWriteProto> writes = List.of();
    try {
      admission.admit();
      writes = validator.check(txnId, requested);
    } catch (IOException e) {
      refusal = e;
    }
    GroupCache cache;
    try {
      cache = caches.get(id);
    } catch (DoNotRetryIOException e) { // this leader cannot load the group: only an earlier one may have committed
      cache = null;
      refusal = refusal != null ? refusal : new CommitRefusedException(e.getMessage());
    }
    if (cache == null) {
      cache = caches.releasing(id);
    }
    if (cache == null) { // deleted after every commit it made was shipped, or never here: the record has them all
      OptionalLong ts = committed.commitTs(id, txnId);
      if (ts.isPresent()) {
        return CommitOutcome.committed(ts.getAsLong(), 0);
      }
      if (refusal != null) {
        throw refusal;
      }
      return CommitOutcome.failed(TxnOutcome.NO_GROUP, "no active group " + id);
    }
    cache.awaitSettled(waitMillis);
    EarlierOutcome lookedUp = null;
    while (true) {
      EarlierOutcome earlier;
      cache.commitLock.lock();
      long start = System.nanoTime();
      try {
        if (lookedUp != null) { // ended under the lock: no attempt of this transaction committed while it ran
          cache.lookupEnded(txnId);
        }
        if (cache.closed() == GroupCache.Closed.REGION_CLOSING) {
          throw GroupCaches.moving(id);
        }
        if (cache.inDoubt() != null) { // a commit went in doubt since we waited: it may be this one
          throw cache.awaitingOutcome();
        }
        earlier = EarlierOutcome.of(cache, txnId, seenIncarnation, seenTs, lookedUp);
        if (!earlier.needsLookup()) {
          if (earlier.outcome() != null) {
            return earlier.outcome();
          }
          if (refusal != null) {
            throw refusal;
          }
          CommitOutcome outcome = validateAndLog(cache, txnId, seenIncarnation, reads, writes);
          if (outcome.outcome() == TxnOutcome.COMMITTED && !writes.isEmpty()) {
            metrics.committed(System.nanoTime() - start);
          }
          return outcome;
        }
        cache.lookupStarted(txnId);
      } finally {
        cache.commitLock.unlock();
      }
      metrics.outcomeLookedUp();
      OptionalLong ts;
      try {
        ts = lookups.commitTs(cache.group, txnId, earlier.lookUpThrough());
      } catch (IOException | RuntimeException e) {
        cache.lookupEnded(txnId);
        throw e;
      }
      lookedUp = new EarlierOutcome(ts.isPresent() ? CommitOutcome.committed(ts.getAsLong(), 0) : null,
          earlier.lookUpThrough());
    }
  }

  /** Validates a transaction with no earlier outcome and, if it may commit, logs and applies it. With the lock. */
  private CommitOutcome validateAndLog(GroupCache cache, String txnId, long seenIncarnation, List<ReadStamp> reads,
      List<RowWriteProto> writes) throws IOException {
    if (cache.closed() == GroupCache.Closed.RELEASED) {
      return CommitOutcome.failed(TxnOutcome.NO_GROUP, "group " + cache.group.id() + " is being deleted");
    }
    if (cache.lookingUp(txnId)) { // another attempt's lookup must not be contradicted by this attempt's commit
      throw new RegionTooBusyException("an earlier attempt of transaction " + txnId + " is being looked up; retry");
    }
    Optional<String> quarantined = shipper.ledger().quarantineCause(cache.group);
    if (quarantined.isPresent()) { // its commits would pile up in the WAL behind it, likely refused alike
      throw new RegionTooBusyException(shipper.quarantinedMessage(cache.group, quarantined.get()));
    }
    CommitOutcome refused = validate(cache, txnId, seenIncarnation, reads, writes);
    if (refused != null) {
      return refused;
    }
    if (writes.isEmpty()) {
      return CommitOutcome.committed(cache.lastCommitTs(), cache.incarnation);
    }
    return logAndApply(cache, txnId, writes);
  }

  /** Why the commit cannot happen (not a member, reloaded, a row changed since it was read), or null. */
  private CommitOutcome validate(GroupCache cache, String txnId, long incarnation, List<ReadStamp> reads,
      List<RowWriteProto> writes) {
    GroupId id = cache.group.id();
    for (RowWriteProto w : writes) {
      Key key = Requests.key(w.getKey());
      if (!cache.isMember(key)) {
        return CommitOutcome.failed(TxnOutcome.NOT_MEMBER, "row " + key + " is not in group " + id);
      }
    }
    if (checksReads && !reads.isEmpty() && incarnation != cache.incarnation) {
      return conflict(cache, txnId, reloaded(id));
    }
    for (ReadStamp r : reads) {
      if (!cache.isMember(r.key())) {
        return CommitOutcome.failed(TxnOutcome.NOT_MEMBER, "row " + r.key() + " is not in group " + id);
      }
      if (checksReads && cache.latest(r.key()).version() != r.version()) {
        return conflict(cache, txnId, "row " + r.key() + " changed since it was read");
      }
    }
    return null;
  }

  /** Makes a validated commit durable, then applies it. With the commit lock. */
  private CommitOutcome logAndApply(GroupCache cache, String txnId, List<RowWriteProto> writes) throws IOException {
    long commitTs = Math.max(cache.lastCommitTs() + 1, clock.getAsLong());
    WalRecordProto record = WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(cache.group))
        .setCommitTs(commitTs).setTxnId(txnId).addAllWrites(writes).build();
    caches.commitLogging(cache.group); // before the append: a mark must follow even if its fate is unknown
    cache.logging(commitTs);
    CompletableFuture<WalPosition> append = wal.append(cache.group, record.toByteArray());
    WalPosition position;
    try {
      position = await(append);
    } catch (InterruptedIOException e) {
      settleWhenKnown(cache, txnId, commitTs, writes, append); // the caller stopped waiting; the append goes on
      throw e;
    } catch (IOException e) {
      // the record may be in the log all the same: a commit validated without it could be contradicted by its
      // replay, so the group is left to the leader region's next host, which replays the log first
      cache.close(GroupCache.Closed.REGION_CLOSING);
      throw e;
    }
    if (position == null) { // still being written: the outcome is known, and applied, once it is durable
      settleWhenKnown(cache, txnId, commitTs, writes, append);
      throw new IOException("the G-Store WAL did not make the commit durable within " + waitMillis + " ms ("
          + GStoreConfig.ENDPOINT_WAIT_MS + "); its outcome is unknown. Group " + cache.group.id() + " takes no"
          + " other commit until it is known; a retry of this commit with the same transaction id gets it");
    }
    return apply(cache, txnId, commitTs, writes, position);
  }

  /** The group takes no other commit until the append's outcome is known and settled ({@link #settleLate}). */
  private void settleWhenKnown(GroupCache cache, String txnId, long commitTs, List<RowWriteProto> writes,
      CompletableFuture<WalPosition> append) {
    cache.markInDoubt(append.handleAsync((p, failure) -> {
      settleLate(cache, txnId, commitTs, writes, p, failure);
      return null;
    }, settler));
  }

  /** Installs a commit durable in the WAL into the cache, ships it and remembers its outcome. With the lock. */
  private CommitOutcome apply(GroupCache cache, String txnId, long commitTs, List<RowWriteProto> writes,
      WalPosition position) {
    Map<Key, RowState> states = new HashMap<>();
    for (RowWriteProto w : writes) {
      Key key = Requests.key(w.getKey());
      states.put(key, cache.latest(key).apply(w, commitTs));
    }
    cache.install(states, commitTs, clock.getAsLong());
    shipper.ship(new Shipment(cache.group, commitTs, txnId, writes, position));
    CommitOutcome committed = CommitOutcome.committed(commitTs, cache.incarnation);
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

  private CommitOutcome conflict(GroupCache cache, String txnId, String why) {
    CommitOutcome conflict = CommitOutcome.failed(TxnOutcome.CONFLICT, why);
    cache.remember(txnId, conflict);
    cache.conflicted();
    metrics.conflicted();
    return conflict;
  }

  private static String reloaded(GroupId id) {
    return "the leader of group " + id + " reloaded it (a region move, split or restart) since this transaction"
        + " began; retry the transaction";
  }

  /** What the group's cache here counted since it was loaded ({@link GroupCache.Activity#NONE}: none loaded). */
  public GroupCache.Activity activity(GroupId id) {
    return caches.activity(id);
  }

  public void close() {
    settler.shutdownNow();
    lookups.close();
    caches.close();
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
}
