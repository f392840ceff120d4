package org.gstore.testing;

import java.io.IOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.gstore.client.GStoreClient;
import org.gstore.coprocessor.GStoreRegionCoprocessor;

/**
 * Creates the tables the demo, the benchmarks and the chaos run use so that G-Store serves them on any cluster: where G-Store
 * runs cluster-wide the table is created as it is; elsewhere (G-Store enabled per table, or the embedded cluster)
 * the coprocessor is added to its descriptor. Adding it where it already runs cluster-wide would load it twice.
 */
public final class GStoreTables {
  private GStoreTables() {}

  /**
   * Creates {@code descriptor}'s table pre-split at {@code splits} if it does not exist, and makes sure G-Store
   * serves it; see the class doc.
   */
  public static void ensureServed(Connection connection, TableDescriptor descriptor, byte[][] splits)
      throws IOException {
    try (Admin admin = connection.getAdmin(); GStoreClient client = GStoreClient.create(connection)) {
      if (!admin.tableExists(descriptor.getTableName())) {
        admin.createTable(descriptor, splits);
      }
      if (!client.servesTable(descriptor.getTableName())) { // also mends a table left without it by a failed run
        admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(descriptor.getTableName()))
            .setCoprocessor(GStoreRegionCoprocessor.class.getName()).build());
      }
    }
  }

  /** How many rows {@code table} has (a scan that returns only each row's first cell). */
  public static long rowCount(Connection connection, TableName table) throws IOException {
    long n = 0;
    try (Table t = connection.getTable(table);
        ResultScanner rs = t.getScanner(new Scan().setFilter(new FirstKeyOnlyFilter()).setCaching(1_000))) {
      for (Result ignored : rs) {
        n++;
      }
    }
    return n;
  }
}
