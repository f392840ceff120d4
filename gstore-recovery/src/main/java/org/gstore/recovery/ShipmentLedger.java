package org.gstore.recovery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.gstore.common.protocol.GroupRef;

/**
 * What a leader's shipper holds, and why: the bookkeeping of shipping committed transactions from the WAL into
 * HBase, without the thread or the HBase client that do the shipping (the coprocessor's {@code UpdateShipper}, or
 * the recovery simulation, drive it).
 *
 * <p><b>Until persisted, a commit is held.</b> A commit is handed over once durable in the WAL, waits to be
 * shipped, and is numbered when HBase acknowledges it ({@link #shipped}): shipments are numbered in order, and the
 * last acknowledged number is T_F ({@link #shippedThrough}). If the sink persists what it acknowledges (SYNC_WAL)
 * that ends it. Otherwise (ASYNC_WAL) the commit stays held until every region server claimed (T_P) a shipment at
 * or above its number ({@link #forgetPersistedThrough}), and is shipped again if a server that may have lost it
 * dies ({@link #shipAgainAbove}); a commit shipped again gets a new number, so a claim made before it arrived
 * does not cover it. The WAL keeps every record not yet handed over or still held ({@link #walNeededAbove}).
 *
 * <p>A commit HBase refuses for good is <em>quarantined</em> ({@link #refused}): kept in the WAL, shipped again
 * every {@link #quarantineRetryMillis} ({@link #retryQuarantined}), never dropped, and still held: its group's
 * deletes and leader-region closes wait for it, since a release would fence its retries out for good and a
 * handover would load the group without it ({@link #quarantineCause} says why, for the errors they give). The
 * group's commits that were already acknowledged wait behind it ({@link #quarantineBehindEarlier}), and quarantined
 * commits are shipped again in commit order: a group's commits land in commit order.
 *
 * <p>Thread-safe; every change wakes threads waiting on this object's monitor (a drain waits so).
 */
public final class ShipmentLedger {
  /** How often quarantined commits are shipped again, unless set ({@code gstore.shipper.quarantine.retry.ms}). */
  public static final long DEFAULT_QUARANTINE_RETRY_MILLIS = 60_000;

  private final boolean persistedWhenShipped;
  private final Consumer<Shipment> shipAgain;
  /** Commits to ship (again), oldest first. */
  private final LinkedHashSet<Shipment> queued = new LinkedHashSet<>();
  /** ASYNC_WAL: shipped commits not yet known persisted, with the number of their latest shipment. */
  private final LinkedHashMap<Shipment, Long> unpersisted = new LinkedHashMap<>();
  private final HeldCommits held = new HeldCommits();
  /** What each WAL stream keeps: records not yet handed over, and those held (queued, unpersisted, quarantined). */
  private final WalHolds wal;
  /**
   * Commits sent back to be shipped again (a distrusted acknowledgement, a death, out of quarantine) and not landed
   * since: a later commit of their group is not numbered before them ({@link #shipped}).
   */
  private final SentBack sentBack = new SentBack();
  /** Commits HBase refused for good, and those held behind them: still held, the WAL keeps them. */
  private final Quarantine quarantine = new Quarantine();
  /** Bumped when acknowledgements of batches sent earlier can no longer be trusted (see {@link #distrust}). */
  private long epoch;
  private long nextShipment;
  private long shippedThrough = -1;
  private long shippedAgain;
  private long persistedOnDrain;

  /**
   * @param persistedWhenShipped whether the sink persists what it acknowledges (SYNC_WAL): nothing stays held
   * @param streams how many WAL streams the leader writes
   * @param shipAgain told of each commit to ship again, at once (after a death, or out of quarantine); commits
   *     handed over are shipped by whoever handed them over
   */
  public ShipmentLedger(boolean persistedWhenShipped, int streams, Consumer<Shipment> shipAgain) {
    this.persistedWhenShipped = persistedWhenShipped;
    this.shipAgain = shipAgain;
    this.wal = new WalHolds(streams);
  }

  /** A commit durable in the WAL at {@code s.position()} is to be shipped: it is held until persisted. */
  public synchronized void handOver(Shipment s) {
    held.add(s);
    wal.hold(s.position());
    queued.add(s);
  }

  /**
   * A record that is not a commit (a persisted mark) is durable in the WAL at {@code position}: the WAL need not
   * keep it for the shipper, and the records after it must not wait for it.
   */
  public synchronized void logged(WalPosition position) {
    wal.seen(position);
  }

  /**
   * A record that is not a commit but must stay in the WAL until {@link #release}d (a protocol record not yet
   * checkpointed) is durable at {@code position}.
   */
  public synchronized void hold(WalPosition position) {
    wal.hold(position);
  }

  /**
   * Whether the record held at {@code position} is the oldest its stream keeps while later records follow it: all
   * of them stay in the WAL for its sake.
   */
  public synchronized boolean pinsRecordsAfter(WalPosition position) {
    return wal.pinsRecordsAfter(position);
  }

  /** The record {@link #hold held} at {@code position} need not stay in the WAL any more. */
  public synchronized void release(WalPosition position) {
    wal.release(position);
  }

  /** The epoch to pass to {@link #shipped} for a batch about to be sent. */
  public synchronized long epoch() {
    return epoch;
  }

  /**
   * Acknowledgements of batches sent before now may come from a server that can lose them without a trace (the
   * zombie of a dead server whose suspicion ended, see {@code PersistenceTracker}): such batches are shipped again
   * when acknowledged, not counted.
   */
  public synchronized void distrust() {
    epoch++;
  }

  /**
   * HBase acknowledged {@code batch}, sent at {@code sentAt} ({@link #epoch}): number its shipments (T_F passes
   * them) and hold them until persisted; or, if the acknowledgement is {@linkplain #distrust distrusted}, ship it
   * again.
   *
   * <p>A group's shipments are numbered in its commit order, so a claim that covers a commit covers every earlier
   * one of its group, and the commits of a group shipped again after a death are its latest ones, shipped again in
   * order. A commit landing while an earlier one of its group was sent back to be shipped again (and is not in this
   * batch) is not numbered: it is sent back too, to land after it. Otherwise the later one, persisted and
   * forgotten first, could leave the earlier one to be shipped again alone; landing after a quarantine longer than
   * the delete markers' retention, it would bring back a value the later one deleted.
   */
  public synchronized void shipped(List<Shipment> batch, long sentAt) {
    if (sentAt != epoch) {
      batch.forEach(this::sendBack);
      return;
    }
    List<Shipment> inCommitOrder = new ArrayList<>(batch);
    inCommitOrder.sort(SentBack.IN_COMMIT_ORDER);
    for (Shipment s : inCommitOrder) {
      if (!queued.contains(s)) {
        continue; // a second copy of a commit numbered already (or quarantined since it was sent)
      }
      if (sentBack.holdsEarlierThan(s)) { // it landed before an earlier commit of its group sent back
        sendBack(s);
        continue;
      }
      long number = nextShipment++;
      queued.remove(s);
      sentBack.remove(s);
      quarantine.landed(s);
      if (persistedWhenShipped) {
        release(s);
      } else {
        unpersisted.put(s, number);
      }
    }
    shippedThrough = nextShipment - 1;
    notifyAll();
  }

  /** Ships {@code s} again, if it still waits to be: it is not numbered before it lands again. */
  private void sendBack(Shipment s) {
    if (queued.contains(s)) {
      sentBack.add(s);
      shipAgain.accept(s);
      shippedAgain++;
    }
  }

  /** How often quarantined commits are shipped again ({@link #retryQuarantined}). */
  public synchronized long quarantineRetryMillis() {
    return quarantine.retryMillis();
  }

  public synchronized void quarantineRetryMillis(long millis) {
    quarantine.retryMillis(millis);
  }

  /** HBase refused {@code s} for good, saying {@code because}: quarantine it (see the class comment). */
  public synchronized void refused(Shipment s, String because) {
    quarantine.refused(s, because);
    sentBack.remove(s);
    queued.remove(s); // still held: held and the WAL keep it
    notifyAll();
  }

  /**
   * If an earlier commit of {@code s}'s group is quarantined, or shipped again out of quarantine and not landed
   * (unless it lands with {@code s}, in {@code landingWith}), quarantines {@code s} behind it and returns true: a
   * group's commits reach HBase in commit order. A later commit landing first could delete a cell the quarantined one
   * writes; the older write, landing after major compactions purged that delete marker
   * ({@code gstore.recovery.deletes.retain.ms}), would bring the deleted value back. Only commits acknowledged before
   * the quarantine was known (or shipped again after a death) can be behind one: the group takes no new commit
   * meanwhile.
   */
  public synchronized boolean quarantineBehindEarlier(Shipment s, Collection<Shipment> landingWith) {
    if (quarantine.holdBehindEarlier(s, landingWith) == null) {
      return false;
    }
    sentBack.remove(s);
    queued.remove(s); // still held: held and the WAL keep it
    notifyAll();
    return true;
  }

  /** Whether {@link #quarantineBehindEarlier} would hold {@code s} now (it changes nothing). */
  public synchronized boolean blockedBehindEarlier(Shipment s, Collection<Shipment> landingWith) {
    return quarantine.blocker(s, landingWith) != null;
  }

  /**
   * Whether nothing is quarantined now: no commit can then be held behind another, and a batch need not be checked
   * commit by commit ({@link #quarantineBehindEarlier}). Only the shipping thread quarantines a commit.
   */
  public synchronized boolean quarantineEmpty() {
    return quarantine.isEmpty();
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
      sentBack.add(s);
      shipAgain.accept(s);
    }
    shippedAgain += again.size();
    return again.size();
  }

  /**
   * Ships the quarantined commits again if {@link #quarantineRetryMillis} passed since the last time: those whose
   * cause was fixed land and are held as any shipped commit; the others are quarantined again. Returns how many were
   * shipped again.
   */
  public synchronized int retryQuarantined(long now) {
    List<Shipment> again = quarantine.dueForRetry(now); // in commit order: see quarantineBehindEarlier
    for (Shipment s : again) {
      queued.add(s);
      sentBack.add(s);
      shipAgain.accept(s);
    }
    return again.size();
  }

  /** The shipped, unpersisted commits of {@code group}, which a drain writes again persisted. */
  public synchronized List<Shipment> unpersistedOf(GroupRef group) {
    return unpersisted.keySet().stream().filter(s -> s.group().equals(group)).toList();
  }

  /** A drain wrote {@code written} again, persisted: those not being shipped again meanwhile are held no longer. */
  public synchronized void persistedOnDrain(List<Shipment> written) {
    for (Shipment s : written) {
      if (unpersisted.remove(s) != null) { // else it is being shipped again: the drain's next round waits for it
        release(s);
      }
    }
    persistedOnDrain += written.size();
    notifyAll();
  }

  /**
   * The WAL of {@code stream} must keep the records above this sequence number: every record up to it was seen
   * by the shipper and is neither waiting to ship, nor unpersisted, nor quarantined.
   */
  public synchronized long walNeededAbove(int stream) {
    return wal.neededAbove(stream);
  }

  /** Commits handed over and not yet persisted in HBase, quarantined ones included. */
  public synchronized int pendingCount() {
    return held.count();
  }

  /** Commits of {@code group} handed over and not yet persisted in HBase. */
  public synchronized int pendingCount(GroupRef group) {
    return held.count(group);
  }

  /**
   * The oldest commit timestamp among the held commits of {@code group}, if any: every commit of the group handed
   * over with an older one is persisted.
   */
  public synchronized OptionalLong oldestHeldCommitTs(GroupRef group) {
    return held.oldest(group);
  }

  /** Whether {@code s} is held: waiting to ship (again), shipped but not known persisted, or quarantined. */
  public synchronized boolean holds(Shipment s) {
    return queued.contains(s) || unpersisted.containsKey(s) || quarantine.contains(s);
  }

  /**
   * Whether no commit of {@code group} stamped at or before {@code commitTs} waits to be shipped (again): each
   * reached HBase, its outcome row with it, or was quarantined after its outcome row was written (not one held
   * behind a quarantined commit before it was ever sent).
   */
  public synchronized boolean shippedThrough(GroupRef group, long commitTs) {
    return queued.stream().noneMatch(s -> s.group().equals(group) && s.commitTs() <= commitTs)
        && !quarantine.holdsUnsent(group, commitTs);
  }

  /**
   * The commits of {@code batch} that wait to be shipped (again), each once, in the batch's order: a commit can be
   * queued twice (sent back, and its batch re-queued after a failure), and a copy must not ship once it landed.
   */
  public synchronized List<Shipment> waitingAmong(List<Shipment> batch) {
    return batch.stream().distinct().filter(queued::contains).toList();
  }

  /** Whether {@code s} waits to be shipped (again): not landed, not quarantined. */
  public synchronized boolean waitsToShip(Shipment s) {
    return queued.contains(s);
  }

  /** Commits of {@code group} waiting to be shipped (again). */
  public synchronized int queuedCount(GroupRef group) {
    return (int) queued.stream().filter(s -> s.group().equals(group)).count();
  }

  /** Shipped commits waiting to be known persisted (ASYNC_WAL). */
  public synchronized int unpersistedCount() {
    return unpersisted.size();
  }

  /** Commits HBase refused for good and not shipped since (see the class comment). */
  public synchronized long quarantinedCount() {
    return quarantine.count();
  }

  /** Why HBase refused a quarantined commit of {@code group}, if it has one now (HBase does not have it). */
  public synchronized Optional<String> quarantineCause(GroupRef group) {
    return quarantine.cause(group);
  }

  /** How many times HBase refused a commit for good (each refusal of a commit shipped again counts). */
  public synchronized long refusals() {
    return quarantine.refusals();
  }

  /**
   * Commits shipped again: a region server that may have lost them died, their acknowledgement was distrusted, or
   * they landed before an earlier commit of their group that was sent back.
   */
  public synchronized long shippedAgainCount() {
    return shippedAgain;
  }

  /** ASYNC_WAL: commits written again persisted because their group was deleted or its region closed. */
  public synchronized long persistedOnDrainCount() {
    return persistedOnDrain;
  }

  /**
   * How far behind shipping is, in milliseconds of commit time (0 when nothing waits); quarantined commits shipped
   * again do not count (their alert is the quarantine's).
   */
  public synchronized long lagMillis(long now) {
    for (Shipment s : queued) {
      if (!quarantine.isRetrying(s)) {
        return Math.max(0, now - s.commitTs());
      }
    }
    return 0;
  }

  /** Wakes the threads waiting on this ledger (the shipper closing). */
  public synchronized void wakeAll() {
    notifyAll();
  }

  private void release(Shipment s) {
    held.remove(s);
    wal.release(s.position());
  }
}
