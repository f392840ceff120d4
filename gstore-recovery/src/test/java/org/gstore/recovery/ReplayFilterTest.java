package org.gstore.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ReplayFilterTest {
  private static final GroupRef MOVED = group("moved-away");
  private static final GroupRef STAYED = group("stayed");

  @Test
  void commitsBeforeTheirGroupsLastPersistedMarkAreNotWrittenAgain() {
    // the group committed at this leader, moved away (drained, marked), came back and committed again
    List<WalRecordProto> log = List.of(commit(MOVED, "m1"), commit(STAYED, "s1"), commit(MOVED, "m2"),
        mark(MOVED), commit(MOVED, "m3"), commit(STAYED, "s2"));
    assertThat(replayed(log)).containsExactly("s1", "m3", "s2");
  }

  @Test
  void aLogWithoutMarksIsWrittenWhole() {
    assertThat(replayed(List.of(commit(MOVED, "m1"), commit(STAYED, "s1")))).containsExactly("m1", "s1");
  }

  @Test
  void aPersistedThroughMarkCoversOnlyTheCommitsBeforeItAtOrBelowItsTimestamp() {
    // a live group's heartbeat mark: t3 was still being shipped when it was logged, so only t1 and t2 are covered
    List<WalRecordProto> log = List.of(commit(STAYED, "t1", 10), commit(STAYED, "t2", 20), commit(STAYED, "t3", 30),
        through(STAYED, 20), commit(STAYED, "t4", 40), commit(MOVED, "m1", 15));
    assertThat(replayed(log)).containsExactly("t3", "t4", "m1");
  }

  @Test
  void aCommitAfterAPersistedThroughMarkIsWrittenWhateverItsTimestamp() {
    // a commit logged after the mark is not covered by it, even stamped below it (it could not have been persisted)
    List<WalRecordProto> log = List.of(commit(STAYED, "t1", 10), through(STAYED, 50), commit(STAYED, "t2", 40),
        through(STAYED, 30));
    assertThat(replayed(log)).containsExactly("t2");
  }

  @Test
  void aLaterMarkCoversWhatAnEarlierOneDidNot() {
    List<WalRecordProto> log = List.of(commit(STAYED, "t1", 10), commit(STAYED, "t2", 20), through(STAYED, 10),
        commit(STAYED, "t3", 30), through(STAYED, 30), commit(STAYED, "t4", 40));
    assertThat(replayed(log)).containsExactly("t4");
  }

  private static List<String> replayed(List<WalRecordProto> log) {
    ReplayFilter filter = new ReplayFilter();
    for (int i = 0; i < log.size(); i++) {
      filter.observe(i, log.get(i));
    }
    List<String> written = new ArrayList<>();
    for (int i = 0; i < log.size(); i++) {
      if (filter.replays(i, log.get(i))) {
        written.add(log.get(i).getTxnId());
      }
    }
    return written;
  }

  private static WalRecordProto commit(GroupRef group, String txnId) {
    return WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(group)).setCommitTs(1).setTxnId(txnId).build();
  }

  private static WalRecordProto commit(GroupRef group, String txnId, long commitTs) {
    return WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(group)).setCommitTs(commitTs).setTxnId(txnId)
        .build();
  }

  private static WalRecordProto through(GroupRef group, long commitTs) {
    return WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(group)).setCommitTs(commitTs).setTxnId("")
        .setPersistedThrough(true).build();
  }

  private static WalRecordProto mark(GroupRef group) {
    return WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(group)).setCommitTs(1).setTxnId("")
        .setPersistedMark(true).build();
  }

  private static GroupRef group(String name) {
    return new GroupRef(new GroupId(name, Key.of("t", name)), new Uid(new NodeId("n"), 1));
  }
}
