package org.gstore.coprocessor.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

class PeerRegistryTest {
  @Test
  void garbageInAPeerZnodeReadsAsUnreachableRatherThanFailing() {
    for (String garbage : new String[] {"", ":", "host", "host:", ":123", "host:notaport", "host:0", "host:70000",
        "host:99999999999", "no-such-host.invalid:1234"}) {
      assertThat(PeerRegistry.parse(garbage)).as(garbage).isNull();
    }
    assertThat(PeerRegistry.parse("127.0.0.1:4000").getPort()).isEqualTo(4000);
  }

  @Test
  void withSecureZooKeeperOnlyTheCreatorAndHBaseSuperusersMayWriteAZnode() {
    assertThat(PeerRegistry.acl(false, "admin")).isEqualTo(ZooDefs.Ids.OPEN_ACL_UNSAFE);
    assertThat(PeerRegistry.acl(true)).containsAll(ZooDefs.Ids.CREATOR_ALL_ACL)
        .containsAll(ZooDefs.Ids.READ_ACL_UNSAFE).hasSize(2);
    assertThat(PeerRegistry.acl(true, "admin", "@ops", "")).as("a group has no ZooKeeper id")
        .contains(new org.apache.zookeeper.data.ACL(ZooDefs.Perms.ALL,
            new org.apache.zookeeper.data.Id("sasl", "admin"))).hasSize(3);
  }
}
