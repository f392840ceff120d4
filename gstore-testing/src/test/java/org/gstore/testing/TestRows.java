package org.gstore.testing;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;

/** Rows spread over a table's regions, and small checks on them. */
final class TestRows {
  private TestRows() {}

  /** Row {@code i}: a two-digit bucket (0-9, spread over the splits) then the number. */
  static byte[] row(int i) {
    return Bytes.toBytes(String.format("%d-%05d", i % 10, i));
  }

  /** Rows {@code from} to {@code from + count - 1}. */
  static List<byte[]> rows(int from, int count) {
    List<byte[]> rows = new java.util.ArrayList<>();
    for (int i = from; i < from + count; i++) {
      rows.add(row(i));
    }
    return rows;
  }

  /** Split keys dividing rows of {@link #row} into {@code regions} regions. */
  static byte[][] splits(int regions) {
    byte[][] splits = new byte[regions - 1][];
    for (int i = 1; i < regions; i++) {
      splits[i - 1] = Bytes.toBytes(String.valueOf(i * 10 / regions));
    }
    return splits;
  }

  static Set<String> serversHosting(GStoreMiniCluster cluster, TableName table, List<byte[]> rows) throws IOException {
    Set<String> servers = new TreeSet<>();
    try (RegionLocator locator = cluster.getConnection().getRegionLocator(table)) {
      for (byte[] row : rows) {
        servers.add(locator.getRegionLocation(row, true).getServerName().getServerName());
      }
    }
    return servers;
  }

  /** Waits until none of the rows is joining or yielded to any group (durable state). */
  static void awaitFree(GStoreMiniCluster cluster, TableName table, List<byte[]> rows) {
    Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
        .until(() -> rows.stream().noneMatch(r -> StateTablesView.isGrouped(cluster, table, r)));
  }
}
