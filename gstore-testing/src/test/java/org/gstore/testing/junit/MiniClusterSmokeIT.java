package org.gstore.testing.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Proves the shared mini-cluster setup: JDK 17 flags, HDFS, ZooKeeper, a master and two region servers. */
@WithMiniCluster(regionServers = 2)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MiniClusterSmokeIT {
  private static final byte[] CF = Bytes.toBytes("f");

  @Test
  void writesAndReadsARowOnARegionServer(HBaseTestingUtility util, Connection connection) throws Exception {
    assertThat(util.getMiniHBaseCluster().getLiveRegionServerThreads()).hasSizeGreaterThanOrEqualTo(2);
    TableName name = TableName.valueOf("smoke");
    try (Table table = util.createTable(name, CF)) {
      table.put(new Put(Bytes.toBytes("row-1")).addColumn(CF, Bytes.toBytes("q"), Bytes.toBytes("hello")));
    }
    try (Table table = connection.getTable(name)) {
      Result r = table.get(new Get(Bytes.toBytes("row-1")));
      assertThat(Bytes.toString(r.getValue(CF, Bytes.toBytes("q")))).isEqualTo("hello");
      assertThat(table.get(new Get(Bytes.toBytes("row-2"))).isEmpty()).isTrue();
    }
  }
}
