package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.zookeeper.ZKConfig;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** ZooKeeper sessions of their own, as a separate process (another region server, an operator's tool) has. */
final class TestZooKeeper {
  private TestZooKeeper() {}

  /** A connected session to the cluster's ZooKeeper; the caller closes it. */
  static ZooKeeper session(Configuration conf) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(ZKConfig.getZKQuorumServersString(conf), 30_000, e -> {
      if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    assertThat(connected.await(30, TimeUnit.SECONDS)).isTrue();
    return zk;
  }
}
