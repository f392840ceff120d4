package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.gstore.recovery.hbase.RecoveryZnodes;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A claim is withdrawn only in the same ZooKeeper transaction that finds the server live to HBase (its {@code rs}
 * znode): against the cluster's real ZooKeeper, under a parent of the test's own, so that HBase's master never sees
 * the servers it makes up.
 */
@WithMiniCluster(regionServers = 1)
class RecoveryZnodesIT {
  /** A parent of this run's own: the cluster is shared by the JVM's tests, and a rerun must not meet this one's. */
  private static final String PARENT = "/recovery-znodes-it-" + System.nanoTime();
  private static ZooKeeper zk;
  private static RecoveryZnodes znodes;

  @BeforeAll
  static void connect(Configuration conf) throws Exception {
    zk = TestZooKeeper.session(conf);
    zk.create(PARENT, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    zk.create(PARENT + "/rs", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    znodes = new RecoveryZnodes(() -> zk, PARENT, ZooDefs.Ids.OPEN_ACL_UNSAFE);
  }

  @AfterAll
  static void close() throws Exception {
    zk.close();
  }

  @Test
  void aServerLiveToHBaseWithdrawsItsClaim() throws Exception {
    String server = "live.example.com,16020,1";
    zk.create(PARENT + "/rs/" + server, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    znodes.register(server);
    znodes.publishClaim(server, Map.of("leader.example.com,16020,1@1", 7L));

    znodes.unregister(server);

    assertThat(znodes.claims()).doesNotContainKey(server);
  }

  @Test
  void aServerHBaseCountsDeadKeepsItsClaimAndIsTold() throws Exception {
    String server = "declared-dead.example.com,16020,1"; // no rs znode: HBase took its regions away
    znodes.register(server);
    znodes.publishClaim(server, Map.of("leader.example.com,16020,1@1", 7L));

    assertThatThrownBy(() -> znodes.unregister(server)).isInstanceOf(IOException.class)
        .hasMessageContaining("not live to HBase");

    assertThat(znodes.claims()).containsEntry(server, Map.of("leader.example.com,16020,1@1", 7L));
  }
}
