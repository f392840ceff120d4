package org.gstore.recovery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;

/**
 * Which records of one log a replay writes: the commits of a group that no later mark of the group covers. A
 * persisted mark ({@code WalRecordProto.persisted_mark}, logged when the group's commits leave the leader) covers
 * every commit of the group before it; a persisted-through mark ({@code persisted_through}, logged at a heartbeat
 * while the group lives on) covers the commits before it whose commit timestamp is at or below its own. Covered
 * commits are in HBase already, and writing them again is not harmless: after the group moved to another leader,
 * which deleted a value and a major compaction dropped the delete marker, a second write of the old value would
 * bring it back.
 *
 * <p>Fed every record of the log in log order first ({@link #observe}), then asked about each ({@link #replays}).
 * Records are numbered by their order in the log; a group's records are all in one stream, so the order of
 * different streams does not matter.
 */
public final class ReplayFilter {
  /** A group's persisted-through marks, in log order. */
  private static final class ThroughMarks {
    final List<long[]> marks = new ArrayList<>(); // {index, commitTs}
    long[] newestAfter; // newestAfter[i]: the greatest commitTs among marks i.. (computed once observing ends)

    long coveredAfter(long index) {
      if (newestAfter == null) {
        newestAfter = new long[marks.size()];
        long newest = Long.MIN_VALUE;
        for (int i = marks.size() - 1; i >= 0; i--) {
          newest = Math.max(newest, marks.get(i)[1]);
          newestAfter[i] = newest;
        }
      }
      int lo = 0;
      int hi = marks.size();
      while (lo < hi) { // the first mark after index
        int mid = (lo + hi) >>> 1;
        if (marks.get(mid)[0] > index) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      return lo == marks.size() ? Long.MIN_VALUE : newestAfter[lo];
    }
  }

  private final Map<GroupRef, Long> lastMark = new HashMap<>();
  private final Map<GroupRef, ThroughMarks> throughMarks = new HashMap<>();

  /** Notes record number {@code index} of the log. */
  public void observe(long index, WalRecordProto record) {
    if (record.getPersistedMark()) {
      lastMark.merge(DatagramCodec.fromProto(record.getGroup()), index, Math::max);
    } else if (record.getPersistedThrough()) {
      ThroughMarks group = throughMarks.computeIfAbsent(DatagramCodec.fromProto(record.getGroup()),
          g -> new ThroughMarks());
      group.marks.add(new long[] {index, record.getCommitTs()});
      group.newestAfter = null;
    }
  }

  /**
   * Whether record number {@code index} must be written: a commit no later mark of its group covers (not a mark,
   * nor a protocol record: {@link org.gstore.recovery.hbase.ProtocolReplay} writes those).
   */
  public boolean replays(long index, WalRecordProto record) {
    if (record.getPersistedMark() || record.getPersistedThrough() || record.hasProtocol()) {
      return false;
    }
    GroupRef group = DatagramCodec.fromProto(record.getGroup());
    Long mark = lastMark.get(group);
    if (mark != null && index < mark) {
      return false;
    }
    ThroughMarks through = throughMarks.get(group);
    return through == null || through.coveredAfter(index) < record.getCommitTs();
  }
}
