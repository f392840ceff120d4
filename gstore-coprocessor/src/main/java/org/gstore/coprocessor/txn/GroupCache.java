package org.gstore.coprocessor.txn;

import java.util.ArrayDeque;
import java.util.Deque;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.hadoop.hbase.RegionTooBusyException;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.recovery.CommittedTxns;

/**
 * The leader's copy of one group's rows: for each member, its recent committed states, newest last, so that a
 * read-only transaction can read a consistent snapshot while writers commit. Versions older than the snapshot
 * retention are dropped, but a row's newest state is always kept.
 *
 * <p>Each load of a group is a new <em>incarnation</em> with an id of its own. Transactions are tied to the
 * incarnation they first read from: the versions a transaction read, and its snapshot, mean nothing to a cache
 * loaded later (after a region move, split or restart), which holds only the newest state of each row.
 *
 * <p>Commits of a group are serialized by {@link #commitLock} (validation, WAL append and apply); reads
 * synchronize on the cache itself only to pick versions.
 */
public final class GroupCache {
  /** Why a cache stopped taking commits. */
  enum Closed {
    /** The group is being deleted: callers are told there is no such group. */
    RELEASED,
    /** The leader's region is closing (move, split, merge, stop): callers retry at the region's next host. */
    REGION_CLOSING
  }

  static final int OUTCOMES_REMEMBERED = 10_000;

  final GroupRef group;
  final long incarnation;
  final ReentrantLock commitLock = new ReentrantLock();
  private final Map<Key, Deque<RowState>> rows;
  private final long retentionMillis;
  private long lastCommitTs;
  /** The newest commit timestamp a persisted-through mark of this incarnation covers (0: none). With the lock. */
  long markedThroughTs;
  /** The oldest commit this incarnation logged since the group's last persisted mark (0: none). With the lock. */
  long firstUnmarkedTs;
  /** This incarnation's commits and aborts by validation, for operators (gstore top); not protocol state. */
  private final java.util.concurrent.atomic.AtomicLong commits = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong conflicts = new java.util.concurrent.atomic.AtomicLong();
  private volatile Closed closed;
  /**
   * A commit whose WAL append outlived the caller's wait: completes once its outcome is known and, if it was made
   * durable, installed and shipped. Null when none; the group takes no other commit meanwhile.
   */
  private volatile CompletableFuture<Void> inDoubt;
  /** The outcomes of this incarnation's recent commits, by transaction id; the oldest are forgotten first. */
  private final Map<String, CommitOutcome> recentOutcomes = new LinkedHashMap<>(64, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, CommitOutcome> eldest) {
      if (size() <= OUTCOMES_REMEMBERED) {
        return false;
      }
      forgottenUpTo = Math.max(forgottenUpTo, eldest.getValue().commitTs());
      return true;
    }
  };
  /** The newest commit timestamp among the outcomes forgotten (0: none); commits above it are all remembered. */
  private long forgottenUpTo;
  /** Transactions with a lookup of their outcome running, and how many attempts of each look. */
  private final java.util.concurrent.ConcurrentHashMap<String, Integer> lookingUp =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** @param loaded each member's state in HBase; @param floorTs the newest cell timestamp among them */
  GroupCache(GroupRef group, long incarnation, Map<Key, RowState> loaded, long floorTs, long retentionMillis) {
    this.group = group;
    this.incarnation = incarnation;
    this.retentionMillis = retentionMillis;
    this.rows = new LinkedHashMap<>();
    loaded.forEach((k, s) -> {
      Deque<RowState> versions = new ArrayDeque<>();
      versions.add(s);
      rows.put(k, versions);
    });
    this.lastCommitTs = floorTs;
  }

  boolean isMember(Key key) {
    return rows.containsKey(key);
  }

  /** The newest committed timestamp; commits get strictly larger ones. */
  synchronized long lastCommitTs() {
    return lastCommitTs;
  }

  synchronized RowState latest(Key key) {
    return rows.get(key).getLast();
  }

  /** The row as of {@code snapshot}, or null if that state is older than the retention and gone. */
  synchronized RowState at(Key key, long snapshot) {
    Iterator<RowState> newestFirst = rows.get(key).descendingIterator();
    while (newestFirst.hasNext()) {
      RowState s = newestFirst.next();
      if (s.version() <= snapshot) {
        return s;
      }
    }
    return null;
  }

  /** Installs the states a commit produced (already durable in the WAL). */
  synchronized void install(Map<Key, RowState> states, long commitTs, long now) {
    states.forEach((k, s) -> {
      Deque<RowState> versions = rows.get(k);
      versions.addLast(s);
      // keep a state while the one after it became newest within the retention: snapshots may still read it
      while (versions.size() > 1) {
        Iterator<RowState> it = versions.iterator();
        it.next();
        RowState successor = it.next();
        if (now - successor.version() <= retentionMillis) {
          break;
        }
        versions.removeFirst();
      }
    });
    lastCommitTs = commitTs;
    commits.incrementAndGet();
  }

  void conflicted() {
    conflicts.incrementAndGet();
  }

  /** Commits installed and transactions aborted by validation since this incarnation loaded the group. */
  public Activity activity() {
    return new Activity(commits.get(), conflicts.get());
  }

  /** What a group's cache counted since it was loaded. */
  public record Activity(long commits, long conflicts) {
    public static final Activity NONE = new Activity(0, 0);
  }

  CompletableFuture<Void> inDoubt() {
    return inDoubt;
  }

  /** A commit stamped {@code commitTs} is about to be appended to the WAL. With the commit lock held. */
  void logging(long commitTs) {
    if (firstUnmarkedTs == 0) {
      firstUnmarkedTs = commitTs;
    }
  }

  /** With the commit lock held. */
  void markInDoubt(CompletableFuture<Void> settled) {
    inDoubt = settled;
  }

  /** With the commit lock held. */
  void settled() {
    inDoubt = null;
  }

  /** Null while the cache serves; otherwise why it stopped. Final once set. */
  Closed closed() {
    return closed;
  }

  /** Stops commits for good (the group is being deleted, or its leader region closes). With the lock held. */
  void close(Closed why) {
    if (closed == null) {
      closed = why;
    }
  }

  /** Waits (at most {@code waitMillis}) for the outcome of a commit of the group that is in doubt, if any. */
  void awaitSettled(long waitMillis) throws IOException {
    CompletableFuture<Void> pending = inDoubt;
    if (pending == null) {
      return;
    }
    try {
      pending.get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for an earlier commit of " + group.id());
    } catch (ExecutionException | TimeoutException e) {
      throw awaitingOutcome();
    }
  }

  RegionTooBusyException awaitingOutcome() {
    return new RegionTooBusyException("group " + group.id() + " waits for the outcome of an earlier commit whose"
        + " WAL append is slow; retry");
  }

  /** The outcome of {@code txnId} if remembered here. With the commit lock held. */
  CommitOutcome recentOutcome(String txnId) {
    return recentOutcomes.get(txnId);
  }

  /**
   * Whether this cache remembers the outcome of a transaction if it committed at all, given that its client had
   * seen commit {@code seenTs} of incarnation {@code seenIncarnation} before it first sent the commit: then any
   * commit of it happened in this incarnation (begun after the client saw it), stamped above {@code seenTs}, and no
   * outcome that recent was forgotten. Otherwise {@link CommittedTxns} knows. With the commit lock held.
   */
  boolean remembersEveryCommitAfter(long seenIncarnation, long seenTs) {
    return seenIncarnation == incarnation && seenTs >= forgottenUpTo;
  }

  /**
   * Whether an outcome this cache forgot may be the transaction's: one above {@code seenTs} if the client had seen
   * this incarnation, any one otherwise (another incarnation's timestamps say nothing of this one's: a reload may
   * start below them). With the commit lock held.
   */
  boolean mayHaveForgotten(long seenIncarnation, long seenTs) {
    return seenIncarnation == incarnation ? forgottenUpTo > seenTs : forgottenUpTo > 0;
  }

  /** The newest commit timestamp among the outcomes forgotten (0: none). With the commit lock held. */
  long forgottenUpTo() {
    return forgottenUpTo;
  }

  /** An attempt of {@code txnId} looks its outcome up, off the commit lock: no other attempt of it may commit. */
  void lookupStarted(String txnId) {
    lookingUp.merge(txnId, 1, Integer::sum);
  }

  void lookupEnded(String txnId) {
    lookingUp.computeIfPresent(txnId, (t, n) -> n == 1 ? null : n - 1);
  }

  /** Whether an attempt of {@code txnId} is looking its outcome up ({@link #lookupStarted}). */
  boolean lookingUp(String txnId) {
    return lookingUp.containsKey(txnId);
  }

  /** With the commit lock held. */
  void remember(String txnId, CommitOutcome outcome) {
    recentOutcomes.put(txnId, outcome);
  }
}
