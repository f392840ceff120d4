package org.gstore.bench;

import java.io.IOException;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;

/**
 * How a workload reads and writes one row through a system: inside a G-Store or Omid transaction, or with a
 * plain HBase {@code Table}. Lets a workload describe an operation once and run it on every system.
 */
final class RowAccess {
  private RowAccess() {}

  interface Reader {
    Result get(Get get) throws IOException;
  }

  interface Writer {
    void put(Put put) throws IOException;
  }
}
