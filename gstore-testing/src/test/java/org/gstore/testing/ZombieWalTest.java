package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.apache.hadoop.hbase.zookeeper.ZKWatcher;
import org.apache.hadoop.hbase.zookeeper.ZKConfig;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.OwnerToken;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.coprocessor.recovery.RecoveryZnodes;
import org.gstore.coprocessor.recovery.WalRecovery;
import org.gstore.coprocessor.wal.CommitApplier;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.coprocessor.wal.WalMetrics;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A region server HBase declared dead but that still runs (a long GC pause, a partition) must not acknowledge a
 * commit the recovery of its WAL does not see. The "zombie" here is a G-Store WAL writing to HDFS through its own
 * client, as a separate process would; a recovery pass on another server fences it.
 */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ZombieWalTest {
  private static final GroupRef GROUP = new GroupRef(new GroupId("zombie-group", Key.of("t", new byte[] {1})), new Uid(new NodeId("zombie"), 1));

  @Test
  void aRecoveryFencesADeadServersWalSoItsZombieAcknowledgesNothingMore(GStoreMiniCluster cluster)
      throws Exception {
    Configuration conf = cluster.getConfiguration();
    Path root = new Path(CommonFSUtils.getRootDir(conf), "gstore-wal");
    String zombie = "zombie.example.com,16020,1"; // never a live region server
    FileSystem zombieFs = FileSystem.newInstance(root.toUri(), conf);
    FileSystem recoveryFs = FileSystem.newInstance(root.toUri(), conf);
    SharedWal wal = new SharedWal(zombieFs, new Path(root, zombie), 1, 1 << 16, false, new WalMetrics(
        MetricRegistries.global().create(new MetricRegistryInfo("zombie", "test", "zombie", "zombie", false))));
    ZooKeeper zk = null;
    try {
      wal.append(GROUP, record("acknowledged-1")).get(30, TimeUnit.SECONDS);
      wal.append(GROUP, record("acknowledged-2")).get(30, TimeUnit.SECONDS);

      ZKWatcher watcher = cluster.getTestingUtility().getZooKeeperWatcher();
      java.util.concurrent.CountDownLatch connected = new java.util.concurrent.CountDownLatch(1);
      zk = new ZooKeeper(ZKConfig.getZKQuorumServersString(conf), 30_000, e -> {
        if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
          connected.countDown();
        }
      });
      assertThat(connected.await(30, TimeUnit.SECONDS)).isTrue();
      ZooKeeper session = zk;
      RecoveryZnodes znodes = new RecoveryZnodes(() -> session, watcher.getZNodePaths().baseZNode,
          ZooDefs.Ids.OPEN_ACL_UNSAFE);
      WalRecovery recovery = new WalRecovery(recoveryFs, root, "recoverer.example.com,16020,2", znodes,
          new CommitApplier(cluster.getConnection(), new OwnerToken(cluster.clusterSecret()), Durability.SYNC_WAL),
          600_000);
      WalRecovery.Pass pass = recovery.recoverDeadServers();

      assertThat(pass.serversRecovered()).isPositive();
      assertThat(recovery.committedTxns(GROUP)).containsOnlyKeys("acknowledged-1", "acknowledged-2");
      assertThat(recoveryFs.exists(new Path(root, zombie))).as("renamed away").isFalse();
      // the zombie's next commit fails in its current file (lease and blocks taken over) and in a new one (its
      // directory is gone): it acknowledges nothing the recovery did not read
      for (String txn : new String[] {"too-late-1", "too-late-2"}) {
        assertThatThrownBy(() -> wal.append(GROUP, record(txn)).get(60, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class);
      }
      assertThat(recoveryFs.exists(new Path(root, zombie))).as("no new directory either").isFalse();
    } finally {
      wal.abandon();
      if (zk != null) {
        zk.close();
      }
      zombieFs.close();
      recoveryFs.close();
    }
  }

  private static byte[] record(String txnId) {
    return WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(GROUP)).setCommitTs(1_000).setTxnId(txnId)
        .build().toByteArray();
  }
}
