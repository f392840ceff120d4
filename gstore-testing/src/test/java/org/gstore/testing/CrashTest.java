package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.apache.hadoop.hbase.zookeeper.ZKUtil;
import org.apache.hadoop.hbase.zookeeper.ZKWatcher;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.RowGroupedException;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.coprocessor.GStoreConfig;
import org.gstore.coprocessor.wal.WalPrinter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link GStoreMiniCluster#crashRegionServer} stops a server the way kill -9 would: G-Store on it ships nothing
 * more and leaves its WAL as it was, HBase reassigns its regions, and the groups it led serve again at the next
 * host. Runs its own cluster, with every commit held in the shipper for 5 s, so the crash finds commits that are
 * acknowledged but not shipped. (Replaying them is the recovery manager's job, not tested here.)
 */
class CrashTest {
  private static final byte[] CF = Bytes.toBytes("a");
  private static final byte[] Q = Bytes.toBytes("n");

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aCrashedServerStopsDeadKeepsItsWalAndItsGroupsServeAgainElsewhere() throws Exception {
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(3, Map.of(GStoreConfig.SHIPPER_DELAY_MS, "5000"));
        GStoreClient client = GStoreClient.create(cluster.getConfiguration())) {
      TableName name = TableName.valueOf("crash_rows");
      Table table = cluster.createTable(name, new byte[][] {CF}, TestRows.splits(3));
      List<byte[]> rows = TestRows.rows(0, 10);
      KeyGroup g = client.createGroup(GroupSpec.builder().id("survivor").leader(name, rows.get(0))
          .members(name, rows).build());
      int acknowledged = 0;
      for (long n = 1; n <= 5; n++) {
        long value = n;
        g.transact(txn -> {
          txn.put(name, new Put(rows.get(0)).addColumn(CF, Q, Bytes.toBytes(value)));
          return null;
        });
        acknowledged++;
      }
      ServerName leaderHost;
      try (RegionLocator locator = cluster.getConnection().getRegionLocator(name)) {
        leaderHost = locator.getRegionLocation(rows.get(0), true).getServerName();
      }
      int index = 0;
      while (!cluster.getTestingUtility().getMiniHBaseCluster().getLiveRegionServerThreads().get(index)
          .getRegionServer().getServerName().equals(leaderHost)) {
        index++;
      }

      ServerName dead = cluster.crashRegionServer(index);
      assertThat(dead).isEqualTo(leaderHost);

      // it shipped nothing on its way down: every acknowledged commit is still only in its WAL, left as it was
      FileSystem fs = cluster.getTestingUtility().getTestFileSystem();
      Path walDir = new Path(new Path(CommonFSUtils.getRootDir(cluster.getConfiguration()), "gstore-wal"),
          dead.getServerName());
      List<WalRecordProto> records = new ArrayList<>();
      for (Path file : WalPrinter.files(fs, walDir)) {
        records.addAll(WalPrinter.read(fs, file).records());
      }
      assertThat(records).extracting(r -> r.getGroup().getName()).containsOnly("survivor");
      assertThat(records).hasSize(acknowledged);
      assertThat(table.get(new Get(rows.get(0))).isEmpty()).as("no drain, no shipping").isTrue();
      // and its peer is gone
      ZKWatcher zk = cluster.getTestingUtility().getZooKeeperWatcher();
      assertThat(ZKUtil.listChildrenNoWatch(zk, zk.getZNodePaths().baseZNode + "/gstore/peers"))
          .doesNotContain(dead.getServerName()).hasSize(2);

      // the group's state was in HBase's tables: it is led from the region's next host, its rows stay fenced
      assertThat(client.getGroup(g.id()).members()).isEqualTo(g.members());
      for (byte[] row : rows) {
        assertThatThrownBy(() -> table.put(new Put(row).addColumn(CF, Q, Bytes.toBytes(-1L))))
            .isInstanceOf(RowGroupedException.class);
      }
      g.transact(txn -> {
        txn.put(name, new Put(rows.get(9)).addColumn(CF, Q, Bytes.toBytes(9L)));
        return null;
      });
      table.close();
    }
  }
}
