package org.gstore.testing;

import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.util.Bytes;

/** Region moves and splits for tests, each returning once HBase has finished it. */
final class TestRegions {
  private TestRegions() {}

  /** Moves the region holding {@code row} to another region server; returns the server it went to. */
  static ServerName move(GStoreMiniCluster cluster, TableName name, byte[] row) throws Exception {
    try (RegionLocator locator = cluster.getConnection().getRegionLocator(name);
        Admin admin = cluster.getConnection().getAdmin()) {
      RegionInfo region = locator.getRegionLocation(row, true).getRegion();
      ServerName from = locator.getRegionLocation(row, true).getServerName();
      ServerName to = admin.getRegionServers().stream().filter(s -> !s.equals(from)).sorted().findFirst()
          .orElseThrow();
      admin.move(region.getEncodedNameAsBytes(), to);
      cluster.getTestingUtility().waitFor(60_000,
          () -> to.equals(locator.getRegionLocation(row, true).getServerName()));
      cluster.getTestingUtility().waitUntilNoRegionsInTransition(60_000);
      return to;
    }
  }

  /** Splits {@code name} at {@code splitPoint} and waits until the daughters serve. */
  static void split(GStoreMiniCluster cluster, TableName name, String splitPoint) throws Exception {
    try (Admin admin = cluster.getConnection().getAdmin()) {
      int before = admin.getRegions(name).size();
      admin.split(name, Bytes.toBytes(splitPoint));
      cluster.getTestingUtility().waitFor(60_000, () -> admin.getRegions(name).size() > before);
      cluster.getTestingUtility().waitUntilNoRegionsInTransition(60_000);
    }
  }

  /** The region server hosting {@code row} (looked up afresh). */
  static ServerName hostOf(GStoreMiniCluster cluster, TableName table, byte[] row) throws java.io.IOException {
    try (org.apache.hadoop.hbase.client.RegionLocator locator = cluster.getConnection().getRegionLocator(table)) {
      return locator.getRegionLocation(row, true).getServerName();
    }
  }

  /** The index of {@code server} among the live region server threads (for crashRegionServer). */
  static int serverIndex(GStoreMiniCluster cluster, ServerName server) {
    var threads = cluster.getTestingUtility().getMiniHBaseCluster().getLiveRegionServerThreads();
    for (int i = 0; i < threads.size(); i++) {
      if (threads.get(i).getRegionServer().getServerName().equals(server)) {
        return i;
      }
    }
    throw new AssertionError("no live region server " + server);
  }
}
