package org.gstore.recovery;

import java.util.HashMap;
import java.util.Map;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;

/**
 * Which records of one log a replay writes: the commits of a group logged after the group's last persisted mark
 * (see {@code WalRecordProto.persisted_mark}). Commits before it are in HBase already, and writing them again is
 * not harmless: after the group moved to another leader, which deleted a value and a major compaction dropped the
 * delete marker, a second write of the old value would bring it back.
 *
 * <p>Fed every record of the log in log order first ({@link #observe}), then asked about each ({@link #replays}).
 * Records are numbered by their order in the log; a group's records are all in one stream, so the order of
 * different streams does not matter.
 */
public final class ReplayFilter {
  private final Map<GroupRef, Long> lastMark = new HashMap<>();

  /** Notes record number {@code index} of the log. */
  public void observe(long index, WalRecordProto record) {
    if (record.getPersistedMark()) {
      lastMark.merge(DatagramCodec.fromProto(record.getGroup()), index, Math::max);
    }
  }

  /**
   * Whether record number {@code index} must be written: a commit after its group's last persisted mark (not a
   * mark, nor a protocol record: {@link org.gstore.recovery.hbase.ProtocolReplay} writes those).
   */
  public boolean replays(long index, WalRecordProto record) {
    if (record.getPersistedMark() || record.hasProtocol()) {
      return false;
    }
    Long mark = lastMark.get(DatagramCodec.fromProto(record.getGroup()));
    return mark == null || index > mark;
  }
}
