package org.gstore.coprocessor.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
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

  @Test
  void anUnauthenticatedZooKeeperIsWarnedAboutOncePerQuorumNotOncePerServer() {
    String quorum = "zk-" + UUID.randomUUID() + ".invalid"; // the warned quorums are the JVM's: one of its own
    String another = "zk-" + UUID.randomUUID() + ".invalid";
    try (PeerRegistry first = registry(quorum); PeerRegistry second = registry(quorum);
        PeerRegistry elsewhere = registry(another)) {
      assertThat(first.warnIfUnauthenticated()).as("the first server on it").isTrue();
      assertThat(second.warnIfUnauthenticated()).as("a second server on the same ZooKeeper").isFalse();
      assertThat(elsewhere.warnIfUnauthenticated()).as("a server on another ZooKeeper").isTrue();
    }
  }

  private static PeerRegistry registry(String quorum) {
    Configuration conf = new Configuration(false);
    conf.set(HConstants.ZOOKEEPER_QUORUM, quorum);
    return new PeerRegistry(conf); // connects only on register
  }
}
