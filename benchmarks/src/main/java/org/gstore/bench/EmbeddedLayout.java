package org.gstore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Lays the embedded cluster's regions out the same way in every run: G-Store's state tables on the first region
 * server (by name), the players' regions round-robin over all of them in key order.
 *
 * <p>Why: HBase places regions where it likes, and the placement changes what a lifecycle costs more than anything
 * G-Store does. A state write from the server that hosts the state table is a call within the process; from another
 * server it is an RPC. One lifecycle run at one client (2026-11-28) cost 7.2 ms of CPU where every state write it
 * made happened to be local, and 14-15 ms in the six other runs, where most were not. A fixed layout makes runs comparable;
 * this one is what a cluster larger than the state tables sees: most groups' state is written over the network.
 */
final class EmbeddedLayout {
  private EmbeddedLayout() {}

  static void pin(Connection connection, List<TableName> dataTables, PrintStream out) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
      servers.sort(Comparator.comparing(ServerName::getServerName));
      int moved = 0;
      for (TableName state : admin.listTableNamesByNamespace("gstore")) {
        for (HRegionLocation region : locations(connection, state)) {
          moved += moveIfElsewhere(admin, region, servers.get(0));
        }
      }
      for (TableName table : dataTables) {
        if (admin.tableExists(table)) {
          List<HRegionLocation> regions = locations(connection, table);
          for (int i = 0; i < regions.size(); i++) {
            moved += moveIfElsewhere(admin, regions.get(i), servers.get(i % servers.size()));
          }
        }
      }
      out.printf("the embedded cluster's layout, the same every run: G-Store's state tables on %s, the regions of"
          + " %s round-robin over %d region servers (%d regions moved)%n", servers.get(0).getAddress(), dataTables,
          servers.size(), moved);
    }
  }

  /** The table's regions in key order, where they are now. */
  static List<HRegionLocation> locations(Connection connection, TableName table) throws IOException {
    try (RegionLocator locator = connection.getRegionLocator(table)) {
      List<HRegionLocation> regions = new ArrayList<>(locator.getAllRegionLocations());
      regions.sort(Comparator.comparing(l -> l.getRegion().getStartKey(), Bytes.BYTES_COMPARATOR));
      return regions;
    }
  }

  private static int moveIfElsewhere(Admin admin, HRegionLocation region, ServerName target) throws IOException {
    if (target.equals(region.getServerName())) {
      return 0;
    }
    admin.move(region.getRegion().getEncodedNameAsBytes(), target); // returns once the region is open there
    return 1;
  }
}
