package org.gstore.common.wire;

import com.google.protobuf.InvalidProtocolBufferException;
import java.util.TreeMap;
import org.gstore.common.protocol.CreateMode;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.MemberState;
import org.gstore.common.protocol.OwnerRecord;
import org.gstore.common.wire.generated.GStoreProtos.CreateModeProto;
import org.gstore.common.wire.generated.GStoreProtos.GroupPhaseProto;
import org.gstore.common.wire.generated.GStoreProtos.GroupRecordProto;
import org.gstore.common.wire.generated.GStoreProtos.MemberProto;
import org.gstore.common.wire.generated.GStoreProtos.OwnerRecordProto;

/** Converts the protocol's durable records to and from protobuf, for storage and for client responses. */
public final class RecordCodec {
  private RecordCodec() {}

  public static GroupRecordProto toProto(GroupRecord g) {
    GroupRecordProto.Builder b = GroupRecordProto.newBuilder()
        .setGroup(DatagramCodec.toProto(g.group()))
        .setMode(g.mode() == CreateMode.ATOMIC ? CreateModeProto.ATOMIC : CreateModeProto.BEST_EFFORT)
        .setPhase(GroupPhaseProto.valueOf(g.phase().name()))
        .setCreateRequest(g.createRequest());
    g.members().forEach((k, m) -> {
      MemberProto.Builder mb = MemberProto.newBuilder()
          .setKey(DatagramCodec.toProto(k))
          .setStatus(MemberProto.Status.valueOf(m.status().name()));
      if (m.yieldId() != null) {
        mb.setYieldId(DatagramCodec.toProto(m.yieldId()));
      }
      if (m.refusal() != null) {
        mb.setRefusal(m.refusal());
      }
      b.addMembers(mb);
    });
    if (g.failure() != null) {
      b.setFailure(g.failure());
    }
    if (g.endedAt() != 0) {
      b.setEndedAt(g.endedAt());
    }
    if (g.leaseMillis() != 0) {
      b.setLeaseMs(g.leaseMillis());
    }
    return b.build();
  }

  public static GroupRecord fromProto(GroupRecordProto p) {
    TreeMap<Key, MemberState> members = new TreeMap<>();
    for (MemberProto m : p.getMembersList()) {
      members.put(DatagramCodec.fromProto(m.getKey()), new MemberState(
          MemberState.Status.valueOf(m.getStatus().name()),
          m.hasYieldId() ? DatagramCodec.fromProto(m.getYieldId()) : null,
          m.hasRefusal() ? m.getRefusal() : null));
    }
    return new GroupRecord(DatagramCodec.fromProto(p.getGroup()),
        p.getMode() == CreateModeProto.ATOMIC ? CreateMode.ATOMIC : CreateMode.BEST_EFFORT,
        GroupPhase.valueOf(p.getPhase().name()), p.getCreateRequest(), members,
        p.hasFailure() ? p.getFailure() : null, p.getEndedAt(), p.getLeaseMs());
  }

  public static byte[] encode(GroupRecord g) {
    return toProto(g).toByteArray();
  }

  public static GroupRecord decodeGroup(byte[] bytes) throws InvalidProtocolBufferException {
    return fromProto(GroupRecordProto.parseFrom(bytes));
  }

  public static byte[] encode(OwnerRecord o) {
    return toProto(o).toByteArray();
  }

  public static OwnerRecordProto toProto(OwnerRecord o) {
    return OwnerRecordProto.newBuilder()
        .setKey(DatagramCodec.toProto(o.key()))
        .setGroup(DatagramCodec.toProto(o.group()))
        .setYieldId(DatagramCodec.toProto(o.yieldId()))
        .setState(OwnerRecordProto.State.valueOf(o.state().name()))
        .build();
  }

  public static OwnerRecord decodeOwner(byte[] bytes) throws InvalidProtocolBufferException {
    return fromProto(OwnerRecordProto.parseFrom(bytes));
  }

  public static OwnerRecord fromProto(OwnerRecordProto p) {
    return new OwnerRecord(DatagramCodec.fromProto(p.getKey()), DatagramCodec.fromProto(p.getGroup()),
        DatagramCodec.fromProto(p.getYieldId()), OwnerRecord.State.valueOf(p.getState().name()));
  }
}
