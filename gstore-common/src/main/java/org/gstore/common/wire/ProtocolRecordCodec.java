package org.gstore.common.wire;

import java.util.ArrayList;
import java.util.List;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.common.protocol.log.ProtocolRecord;
import org.gstore.common.wire.generated.GStoreProtos.LoggedChangeProto;
import org.gstore.common.wire.generated.GStoreProtos.ProtocolRecordProto;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;

/** Protocol log records ({@link ProtocolRecord}) as the shared WAL keeps them: a {@link WalRecordProto} each. */
public final class ProtocolRecordCodec {
  private ProtocolRecordCodec() {}

  /** The WAL record of {@code record}. */
  public static byte[] encode(ProtocolRecord record) {
    ProtocolRecordProto.Builder p = ProtocolRecordProto.newBuilder().setSequence(record.sequence());
    record.changes().forEach(c -> p.addChanges(toProto(c)));
    return WalRecordProto.newBuilder().setProtocol(p).build().toByteArray();
  }

  /** The WAL record marking every record up to {@code sequence} checkpointed (see {@link #checkpointedThrough}). */
  public static byte[] encodeCheckpointed(long sequence) {
    return WalRecordProto.newBuilder().setProtocol(ProtocolRecordProto.newBuilder().setSequence(sequence)
        .setCheckpointedThrough(sequence)).build().toByteArray();
  }

  /**
   * The sequence up to which a checkpoint mark says every record of its log is in the state tables, or 0 if
   * {@code wal} is not a mark (a protocol record with changes).
   */
  public static long checkpointedThrough(WalRecordProto wal) {
    return wal.getProtocol().getCheckpointedThrough();
  }

  /** The protocol record in a WAL record that {@link WalRecordProto#hasProtocol has one} and is not a mark. */
  public static ProtocolRecord decode(WalRecordProto wal) {
    ProtocolRecordProto p = wal.getProtocol();
    List<LoggedChange> changes = new ArrayList<>(p.getChangesCount());
    p.getChangesList().forEach(c -> changes.add(fromProto(c)));
    return new ProtocolRecord(p.getSequence(), changes);
  }

  private static LoggedChangeProto toProto(LoggedChange logged) {
    LoggedChangeProto.Builder b = LoggedChangeProto.newBuilder().setVersion(logged.version());
    StateChange change = logged.change();
    if (change instanceof StateChange.PutGroup p) {
      b.setPutGroup(RecordCodec.toProto(p.record()));
    } else if (change instanceof StateChange.RemoveGroup r) {
      b.setRemoveGroup(DatagramCodec.toProto(r.group()));
    } else if (change instanceof StateChange.PutOwner p) {
      b.setPutOwner(RecordCodec.toProto(p.record()));
    } else if (change instanceof StateChange.RemoveOwner r) {
      b.setRemoveOwner(DatagramCodec.toProto(r.key()));
    } else {
      StateChange.ReserveUids u = (StateChange.ReserveUids) change;
      b.setReserveUidsNode(u.node().value()).setReserveUidsUpTo(u.upTo());
    }
    return b.build();
  }

  private static LoggedChange fromProto(LoggedChangeProto p) {
    StateChange change;
    if (p.hasPutGroup()) {
      change = new StateChange.PutGroup(RecordCodec.fromProto(p.getPutGroup()));
    } else if (p.hasRemoveGroup()) {
      change = new StateChange.RemoveGroup(DatagramCodec.fromProto(p.getRemoveGroup()));
    } else if (p.hasPutOwner()) {
      change = new StateChange.PutOwner(RecordCodec.fromProto(p.getPutOwner()));
    } else if (p.hasRemoveOwner()) {
      change = new StateChange.RemoveOwner(DatagramCodec.fromProto(p.getRemoveOwner()));
    } else if (p.hasReserveUidsNode()) {
      change = new StateChange.ReserveUids(new NodeId(p.getReserveUidsNode()), p.getReserveUidsUpTo());
    } else {
      throw new IllegalArgumentException("a logged protocol change without a change (version " + p.getVersion()
          + ")");
    }
    return new LoggedChange(change, p.getVersion());
  }
}
