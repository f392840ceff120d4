package org.gstore.bench;

import org.apache.hadoop.hbase.client.Connection;
import org.gstore.client.GStoreClient;

/** The system a workload runs against: G-Store (groups and transactions) or plain HBase (single-row operations). */
enum BenchSystem {
  GSTORE("gstore"),
  HBASE("hbase");

  final String label;

  BenchSystem(String label) {
    this.label = label;
  }

  /** What a client of either system needs. */
  record Clients(Connection connection, GStoreClient gstore) {}
}
