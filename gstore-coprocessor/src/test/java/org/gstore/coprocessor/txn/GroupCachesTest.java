package org.gstore.coprocessor.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.hadoop.hbase.RegionTooBusyException;
import org.gstore.common.protocol.CreateMode;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.MemberState;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which groups the transaction manager serves, before any cache is loaded (no HBase needed). */
@Timeout(10)
class GroupCachesTest {
  private static final GroupId ID = new GroupId("g", Key.of("t", "L"));

  private static GroupCaches with(GroupPhase phase) {
    TreeMap<Key, MemberState> members = new TreeMap<>();
    members.put(ID.leader(), MemberState.PENDING);
    GroupRecord record = new GroupRecord(new GroupRef(ID, new Uid(new NodeId("n1"), 7)), CreateMode.ATOMIC, phase,
        "req-1", members, null, 0);
    // the loader is never reached: neither phase is served from a cache
    return new GroupCaches(null, id -> Optional.of(record), k -> true);
  }

  @Test
  void aTransactionForAGroupBeingCreatedOrReformedIsToldToRetryNotThatTheGroupIsMissing() {
    assertThatThrownBy(() -> with(GroupPhase.CREATING).get(ID)).isInstanceOf(RegionTooBusyException.class)
        .hasMessageContaining("re-formed");
  }

  @Test
  void aGroupBeingDeletedIsNotServed() throws Exception {
    assertThat(with(GroupPhase.DELETING).get(ID)).isNull();
  }
}
