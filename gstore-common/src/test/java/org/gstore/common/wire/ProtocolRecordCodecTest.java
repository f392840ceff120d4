package org.gstore.common.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.InvalidProtocolBufferException;
import java.util.List;
import java.util.TreeMap;
import org.gstore.common.protocol.CreateMode;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.MemberState;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.OwnerRecord;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.Uid;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.common.protocol.log.ProtocolRecord;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.junit.jupiter.api.Test;

class ProtocolRecordCodecTest {
  private static final NodeId NODE = new NodeId("rs1,16020,1");
  private static final Key LEADER = Key.of("players", "alice");
  private static final GroupRef GROUP = new GroupRef(new GroupId("game", LEADER), new Uid(NODE, 7));

  @Test
  void everyKindOfChangeSurvivesTheWal() throws InvalidProtocolBufferException {
    TreeMap<Key, MemberState> members = new TreeMap<>();
    members.put(LEADER, MemberState.joined(new Uid(NODE, 8)));
    members.put(Key.of("players", "bob"), MemberState.refused("row players/bob is in group x"));
    GroupRecord group = new GroupRecord(GROUP, CreateMode.BEST_EFFORT, GroupPhase.ACTIVE, "r1", members, null, 0,
        30_000);
    ProtocolRecord record = new ProtocolRecord(42, List.of(
        new LoggedChange(new StateChange.ReserveUids(NODE, 128), 1_000),
        new LoggedChange(new StateChange.PutGroup(group), 1_000),
        new LoggedChange(new StateChange.PutOwner(new OwnerRecord(LEADER, GROUP, new Uid(NODE, 8),
            OwnerRecord.State.JOINING)), 1_000),
        new LoggedChange(new StateChange.RemoveOwner(Key.of("players", "carol")), 1_000),
        new LoggedChange(new StateChange.RemoveGroup(new GroupRef(new GroupId("old", LEADER), new Uid(NODE, 2))),
            1_000)));

    WalRecordProto wal = WalRecordProto.parseFrom(ProtocolRecordCodec.encode(record));

    assertThat(wal.hasProtocol()).isTrue();
    assertThat(wal.hasGroup()).as("not a commit").isFalse();
    assertThat(ProtocolRecordCodec.decode(wal)).isEqualTo(record);
  }

  @Test
  void aChangeWithoutAChangeIsRefusedClearly() {
    WalRecordProto wal = WalRecordProto.newBuilder().setProtocol(
        org.gstore.common.wire.generated.GStoreProtos.ProtocolRecordProto.newBuilder().setSequence(1)
            .addChanges(org.gstore.common.wire.generated.GStoreProtos.LoggedChangeProto.newBuilder()
                .setVersion(5))).build();
    assertThatThrownBy(() -> ProtocolRecordCodec.decode(wal)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("without a change");
  }
}
