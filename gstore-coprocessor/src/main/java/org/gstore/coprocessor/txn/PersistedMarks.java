package org.gstore.coprocessor.txn;

import java.util.OptionalLong;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.coprocessor.wal.CommitLog;
import org.gstore.coprocessor.wal.UpdateShipper;

/**
 * Logs persisted marks: a record in a group's WAL stream saying every commit of the group before it is in HBase, so
 * that a replay of this log writes only the group's commits after it ({@code ReplayFilter}).
 *
 * <p>A group's commits leaving this server log one ({@link GroupHandover}); every group led here that committed
 * since its last mark logs one at each persistence heartbeat, covering what HBase has persisted of it
 * ({@link #markPersisted}). Without the latter, a
 * group that lives long (a bank, a game played for hours) had no mark until it moved, and a crash's replay wrote
 * again every commit it made since its WAL file began (up to {@code gstore.wal.roll.bytes}, 64 MB): 27,190 commits
 * and 14.6 s of a five-minute chaos run's crash, while the regions its groups lead waited.
 */
public final class PersistedMarks {
  private final GroupCaches caches;
  private final CommitLog wal;
  private final UpdateShipper shipper;

  public PersistedMarks(GroupCaches caches, CommitLog wal, UpdateShipper shipper) {
    this.caches = caches;
    this.wal = wal;
    this.shipper = shipper;
  }

  /**
   * Logs a mark for each group served here that committed since its last mark, covering the commits HBase has
   * persisted: all of them (a persisted mark) when the shipper holds none of the group's commits, else those older
   * than the oldest it holds (a persisted-through mark; a busy group always has a few heartbeats of commits in
   * flight, so it would otherwise never be marked). None while a commit's append is in doubt. Holds each group's
   * commit lock while it reads the shipper and appends, so that no commit of the group is logged or handed over
   * between the two; skips a group whose lock is busy (the next heartbeat tries again). Returns how many marks it
   * logged.
   */
  public int markPersisted() {
    int marked = 0;
    for (GroupCache cache : caches.unmarkedServing()) {
      if (!cache.commitLock.tryLock()) {
        continue;
      }
      try {
        if (cache.closed() == null && cache.inDoubt() == null && mark(cache)) {
          marked++;
        }
      } finally {
        cache.commitLock.unlock();
      }
    }
    return marked;
  }

  /** With the commit lock held, no append in doubt. */
  private boolean mark(GroupCache cache) {
    OptionalLong oldestHeld = shipper.ledger().oldestHeldCommitTs(cache.group);
    if (oldestHeld.isEmpty()) {
      return log(cache);
    }
    long through = oldestHeld.getAsLong() - 1;
    if (through <= cache.markedThroughTs || cache.firstUnmarkedTs == 0 || through < cache.firstUnmarkedTs) {
      return false; // HBase persisted none of the group's commits logged since its last mark
    }
    byte[] mark = WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(cache.group))
        .setCommitTs(through).setTxnId("").setPersistedThrough(true).build().toByteArray();
    cache.markedThroughTs = through;
    wal.append(cache.group, mark).whenComplete((position, failed) -> {
      if (failed == null) {
        shipper.logged(position);
      } // else the next heartbeat's mark covers as much, or more
    });
    return true;
  }

  /**
   * Logs that every commit of the group so far is persisted in HBase. Not waited for: without the mark a replay
   * writes them again, as before. None while a commit of the group is quarantined, and none if the group logged no
   * commit here since its last mark. The caller knows every commit of the group logged so far is persisted and holds
   * its commit lock, or the group commits here no more. Returns whether it logged one.
   */
  boolean log(GroupCache cache) {
    if (shipper.ledger().quarantineCause(cache.group).isPresent()) {
      return false; // HBase lacks a commit of the group: a replay must still try it
    }
    if (!caches.takeUnmarked(cache.group)) {
      return false; // no commit of the group after its last mark: nothing for a mark to filter
    }
    cache.firstUnmarkedTs = 0;
    byte[] mark = WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(cache.group))
        .setCommitTs(cache.lastCommitTs()).setTxnId("").setPersistedMark(true).build().toByteArray();
    wal.append(cache.group, mark).whenComplete((position, failed) -> {
      if (failed != null) {
        caches.commitLogging(cache.group); // no mark after all: the next one must still be logged
      } else {
        shipper.logged(position);
      }
    });
    return true;
  }
}
