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

  /**
   * Moves the region holding {@code row} to another region server; returns the server it went to. The master may
   * not take the server asked for (one that has just started is not yet a target: it sent the region back where it
   * was, and a wait for the target timed out), so each other server is asked in turn until the region left.
   */
  static ServerName move(GStoreMiniCluster cluster, TableName name, byte[] row) throws Exception {
    try (RegionLocator locator = cluster.getConnection().getRegionLocator(name);
        Admin admin = cluster.getConnection().getAdmin()) {
      RegionInfo region = locator.getRegionLocation(row, true).getRegion();
      ServerName from = locator.getRegionLocation(row, true).getServerName();
      long deadline = System.currentTimeMillis() + 60_000;
      while (System.currentTimeMillis() < deadline) {
        for (ServerName to : admin.getRegionServers().stream().filter(s -> !s.equals(from)).sorted().toList()) {
          admin.move(region.getEncodedNameAsBytes(), to);
          cluster.getTestingUtility().waitUntilNoRegionsInTransition(60_000);
          ServerName now = locator.getRegionLocation(row, true).getServerName();
          if (!now.equals(from)) {
            return now;
          }
        }
      }
      throw new AssertionError("the region of " + Bytes.toStringBinary(row) + " stayed on " + from);
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
