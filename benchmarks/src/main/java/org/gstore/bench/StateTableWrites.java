package org.gstore.bench;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.gstore.common.wire.StateLayout;
import org.gstore.recovery.hbase.OutcomeTable;

/**
 * Rows written to G-Store's own tables, counted by the region servers: the load a group's lifecycle and its commits
 * put on {@code gstore:groups}, {@code gstore:owners}, {@code gstore:nodes} and {@code gstore:outcomes}. Asked of each
 * region server directly (the master's copy of these counters is up to a heartbeat old), region by region: a region
 * that opened during the window (a move, a split) counts from zero there.
 */
final class StateTableWrites {
  private static final List<TableName> TABLES =
      List.of(StateLayout.GROUPS, StateLayout.OWNERS, StateLayout.NODES, OutcomeTable.NAME);

  /** Rows written so far per region of each table, and whether every server answered. */
  record Sample(Map<TableName, Map<String, Long>> regions, boolean complete) {
    static final Sample NONE = new Sample(Map.of(), false);
  }

  private final Connection connection;

  StateTableWrites(Connection connection) {
    this.connection = connection;
  }

  /** Never throws: a server that does not answer (stopping, slow) makes the sample incomplete. */
  Sample sample() {
    Map<TableName, Map<String, Long>> regions = new HashMap<>();
    boolean complete = true;
    try (Admin admin = connection.getAdmin()) {
      for (ServerName server : admin.getRegionServers()) {
        try {
          for (TableName table : TABLES) {
            for (RegionMetrics region : admin.getRegionMetrics(server, table)) {
              regions.computeIfAbsent(table, t -> new HashMap<>())
                  .put(region.getNameAsString(), region.getWriteRequestCount());
            }
          }
        } catch (IOException e) {
          complete = false;
        }
      }
    } catch (IOException e) {
      return Sample.NONE;
    }
    return new Sample(regions, complete);
  }

  /** {@code "groups 2.0, owners 100.0, ..."}: the rows written per operation between two samples. */
  static String perOperation(Sample before, Sample after, long ops) {
    if (!before.complete() || !after.complete() || ops == 0) {
      return "n/a (a region server did not answer, or no operation)";
    }
    StringJoiner line = new StringJoiner(", ");
    for (TableName table : TABLES) {
      Map<String, Long> from = before.regions().getOrDefault(table, Map.of());
      long written = 0;
      for (Map.Entry<String, Long> r : after.regions().getOrDefault(table, Map.of()).entrySet()) {
        long start = from.getOrDefault(r.getKey(), 0L);
        written += r.getValue() >= start ? r.getValue() - start : r.getValue(); // reopened meanwhile: from zero
      }
      line.add(String.format("%s %.1f", table.getQualifierAsString(), written / (double) ops));
    }
    return line.toString();
  }
}
