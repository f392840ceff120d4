package org.gstore.bench;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;

/**
 * Rows written to G-Store's own tables, counted by the region servers: the load a group's lifecycle and its commits
 * put on {@code gstore:groups}, {@code gstore:owners}, {@code gstore:nodes} and {@code gstore:outcomes}. Asked of each
 * region server directly (the master's copy of these counters is up to a heartbeat old).
 */
final class StateTableWrites {
  private static final List<TableName> TABLES = List.of(TableName.valueOf("gstore", "groups"),
      TableName.valueOf("gstore", "owners"), TableName.valueOf("gstore", "nodes"),
      TableName.valueOf("gstore", "outcomes"));

  private final Connection connection;

  StateTableWrites(Connection connection) {
    this.connection = connection;
  }

  /** Rows written so far per table, summed over the region servers (a region moved away takes its count along). */
  Map<TableName, Long> sample() throws IOException {
    Map<TableName, Long> writes = new LinkedHashMap<>();
    try (Admin admin = connection.getAdmin()) {
      for (ServerName server : admin.getRegionServers()) {
        for (TableName table : TABLES) {
          for (RegionMetrics region : admin.getRegionMetrics(server, table)) {
            writes.merge(table, region.getWriteRequestCount(), Long::sum);
          }
        }
      }
    }
    return writes;
  }

  /** {@code "groups 2.0, owners 100.0, ..."}: the rows written per operation between two samples. */
  static String perOperation(Map<TableName, Long> before, Map<TableName, Long> after, long ops) {
    StringJoiner line = new StringJoiner(", ");
    for (TableName table : TABLES) {
      long written = after.getOrDefault(table, 0L) - before.getOrDefault(table, 0L);
      line.add(String.format("%s %.1f", table.getQualifierAsString(), ops == 0 ? 0.0 : written / (double) ops));
    }
    return line.toString();
  }
}
