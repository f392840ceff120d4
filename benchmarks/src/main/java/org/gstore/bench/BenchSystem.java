package org.gstore.bench;

import org.apache.hadoop.hbase.client.Connection;
import org.gstore.bench.omid.OmidClient;
import org.gstore.client.GStoreClient;

/**
 * The system a workload runs against: G-Store (groups and transactions), plain HBase (single-row operations,
 * no transactions) or Apache Omid (snapshot-isolation transactions through its timestamp oracle).
 */
public enum BenchSystem {
  GSTORE,
  HBASE,
  OMID;

  /** {@code gstore}, {@code hbase}, {@code omid}: how {@code --systems} names it. */
  public static BenchSystem of(String name) {
    for (BenchSystem s : values()) {
      if (s.name().equalsIgnoreCase(name.trim())) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown system '" + name + "' (gstore, hbase, omid)");
  }

  /** What a client of any system needs; {@code omid} is null when Omid does not run. */
  record Clients(Connection connection, GStoreClient gstore, OmidClient omid) {}
}
