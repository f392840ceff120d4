package org.gstore.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The phases in which a batch of protocol state changes becomes durable. */
@Timeout(10)
class WriteOrderTest {
  private static final NodeId N1 = new NodeId("n1");
  private static final Key L = Key.of("t", "L");
  private static final Key F = Key.of("t", "F");
  private static final GroupRef G = new GroupRef(new GroupId("g", L), new Uid(N1, 1));

  private static StateChange group(GroupPhase phase, MemberState leader) {
    TreeMap<Key, MemberState> members = new TreeMap<>();
    members.put(L, leader);
    members.put(F, MemberState.PENDING);
    return new StateChange.PutGroup(new GroupRecord(G, CreateMode.ATOMIC, phase, "r", members, null, 0));
  }

  private static StateChange joining(Key k) {
    return new StateChange.PutOwner(new OwnerRecord(k, G, new Uid(N1, 2), OwnerRecord.State.JOINING));
  }

  private static final StateChange RESERVE = new StateChange.ReserveUids(N1, 1_000);

  @Test
  void uidReservationsGoFirstAndAlone() {
    StateChange creating = group(GroupPhase.CREATING, MemberState.PENDING);
    assertThat(WriteOrder.phases(List.of(creating, RESERVE, joining(L))))
        .containsExactly(List.of(RESERVE), List.of(joining(L), creating));
  }

  @Test
  void aGroupRecordThatCountsNoJoinIsWrittenWithTheOwnerRecords() {
    for (GroupPhase phase : List.of(GroupPhase.CREATING, GroupPhase.DELETING, GroupPhase.ENDED)) {
      StateChange g = group(phase, phase == GroupPhase.CREATING ? MemberState.PENDING : MemberState.RELEASED);
      assertThat(WriteOrder.phases(List.of(g, joining(F)))).as("%s", phase).containsExactly(List.of(joining(F), g));
    }
    StateChange deleting = group(GroupPhase.DELETING, MemberState.joined(new Uid(N1, 2)));
    assertThat(WriteOrder.phases(List.of(deleting, joining(F)))).as("a deleting group asks every member again")
        .hasSize(1);
  }

  @Test
  void aGroupRecordThatCountsAJoinWaitsForTheOwnerRecords() {
    StateChange active = group(GroupPhase.ACTIVE, MemberState.joined(new Uid(N1, 2)));
    assertThat(WriteOrder.phases(List.of(active, joining(L))))
        .containsExactly(List.of(joining(L)), List.of(active));
    StateChange creatingWithAnswer = group(GroupPhase.CREATING, MemberState.joined(new Uid(N1, 2)));
    assertThat(WriteOrder.phases(List.of(creatingWithAnswer, joining(L))))
        .containsExactly(List.of(joining(L)), List.of(creatingWithAnswer));
  }
}
