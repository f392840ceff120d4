package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A shipper may write a commit again after a newer commit deleted its cells (it ships again what a dead server may
 * have lost, and commits are written with their commit timestamps). A major compaction must not have dropped the
 * delete marker by then, or the old value would come back: G-Store regions keep delete markers for
 * {@code gstore.recovery.deletes.retain.ms}.
 */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DeleteRetentionIT {
  private static final TableName TABLE = TableName.valueOf("delete_retention");
  private static final byte[] CF = Bytes.toBytes("a");
  private static final byte[] Q = Bytes.toBytes("q");

  @Test
  void anOldWriteShippedAgainAfterAMajorCompactionStaysDeleted(GStoreMiniCluster cluster) throws Exception {
    byte[] row = Bytes.toBytes("r");
    long now = System.currentTimeMillis();
    try (Table table = cluster.createTable(TABLE, new byte[][] {CF}, new byte[0][]);
        Admin admin = cluster.getConnection().getAdmin()) {
      table.put(new Put(row).addColumn(CF, Q, now - 2_000, Bytes.toBytes("old")));
      table.delete(new Delete(row).addColumns(CF, Q, now - 1_000)); // a newer commit deleted it
      admin.flush(TABLE);
      for (HRegion region : cluster.getTestingUtility().getHBaseCluster().getRegions(TABLE)) {
        region.compact(true); // a major compaction, synchronously
      }

      assertThat(rawCells(table, row)).as("the major compaction kept the delete marker")
          .isEqualTo(1);
      table.put(new Put(row).addColumn(CF, Q, now - 2_000, Bytes.toBytes("old"))); // shipped again
      assertThat(table.get(new Get(row)).isEmpty()).as("the delete still hides the older write").isTrue();
    }
  }

  private static int rawCells(Table table, byte[] row) throws java.io.IOException {
    try (var scanner = table.getScanner(new Scan().withStartRow(row).withStopRow(row, true).setRaw(true)
        .readAllVersions())) {
      int cells = 0;
      for (var result : scanner) {
        cells += result.rawCells().length;
      }
      return cells;
    }
  }
}
