package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.zookeeper.ZKConfig;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.awaitility.Awaitility;
import org.gstore.common.protocol.NodeId;
import org.gstore.coprocessor.transport.PeerRegistry;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A server's peer address in ZooKeeper through a session expiry, on the mini cluster's ZooKeeper. */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PeerRegistryIT {
  /**
   * Issue 35, item 7: after its session expires, a server publishes its address again, retrying until it can. The
   * first attempts here are refused (the peers' parent znode takes no new child for a while), and the address is
   * back once it does.
   */
  @Test
  void aPeerWhoseSessionExpiredPublishesItselfAgainRetryingUntilItCan(GStoreMiniCluster cluster) throws Exception {
    Configuration conf = cluster.getConfiguration();
    String peers = conf.get(HConstants.ZOOKEEPER_ZNODE_PARENT, HConstants.DEFAULT_ZOOKEEPER_ZNODE_PARENT)
        + "/gstore/peers";
    NodeId node = new NodeId("reregistering.example.com,16020,1");
    String znode = peers + "/" + node.value();
    PeerRegistry registry = new PeerRegistry(conf);
    ZooKeeper operator = TestZooKeeper.session(conf);
    try {
      registry.register(node, new InetSocketAddress("127.0.0.1", 40_404));
      assertThat(operator.exists(znode, false)).isNotNull();

      // the parent takes no new child for now: readable by all, writable only by an operator's digest identity
      operator.addAuthInfo("digest", "operator:secret".getBytes(StandardCharsets.UTF_8));
      List<ACL> locked = java.util.Arrays.asList(new ACL(ZooDefs.Perms.ALL, new Id("digest",
          DigestAuthenticationProvider.generateDigest("operator:secret"))),
          new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
      operator.setACL(peers, locked, -1);

      ZooKeeper session = registry.session(); // expire it, as a long pause would
      java.util.concurrent.CountDownLatch joined = new java.util.concurrent.CountDownLatch(1);
      ZooKeeper sameSession = new ZooKeeper(ZKConfig.getZKQuorumServersString(conf), 30_000, e -> {
        if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
          joined.countDown();
        }
      }, session.getSessionId(), session.getSessionPasswd());
      assertThat(joined.await(30, TimeUnit.SECONDS)).isTrue();
      sameSession.close(); // ends the session: its ephemeral znode goes, and the registry learns it expired
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> operator.exists(znode, false) == null);
      Awaitility.await("refused while the parent takes no child").during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10)).until(() -> operator.exists(znode, false) == null);

      operator.setACL(peers, ZooDefs.Ids.OPEN_ACL_UNSAFE, -1);
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> operator.exists(znode, false) != null);
      assertThat(new String(operator.getData(znode, false, null), StandardCharsets.UTF_8))
          .isEqualTo("127.0.0.1:40404");
    } finally {
      operator.setACL(peers, ZooDefs.Ids.OPEN_ACL_UNSAFE, -1);
      registry.close();
      operator.close();
    }
  }
}
