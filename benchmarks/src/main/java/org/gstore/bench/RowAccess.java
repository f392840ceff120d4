package org.gstore.bench;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;

/**
 * How a workload reads and writes rows through a system: inside a G-Store or Omid transaction, or with a plain
 * HBase {@code Table}. Lets a workload describe an operation once and run it on every system. Reads and writes go
 * as batches, so each system gets its cheapest way to touch several rows: one call to a G-Store group's leader,
 * Omid's and HBase's multi-row calls spread over the servers by row.
 */
final class RowAccess {
  private RowAccess() {}

  interface Reader {
    Result[] get(List<Get> gets) throws IOException;
  }

  interface Writer {
    void put(List<Put> puts) throws IOException;
  }
}
