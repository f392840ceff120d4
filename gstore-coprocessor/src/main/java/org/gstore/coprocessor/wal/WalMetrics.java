package org.gstore.coprocessor.wal;

import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.Histogram;
import org.apache.hadoop.hbase.metrics.MetricRegistry;

/** Group-commit metrics of the shared WAL: how many commits each sync carried and how long syncs took. */
public final class WalMetrics {
  private final Histogram batchSize;
  private final Histogram syncMicros;
  private final Counter syncs;
  private final Counter records;
  /** Calls to the NameNode outside appends: the checks that this server's log is not fenced. */
  private final Counter namenodeCalls;

  public WalMetrics(MetricRegistry registry) {
    this.batchSize = registry.histogram("walBatchSize");
    this.syncMicros = registry.histogram("walSyncLatencyMicros");
    this.syncs = registry.counter("walSyncs");
    this.records = registry.counter("walRecords");
    this.namenodeCalls = registry.counter("namenodeCalls");
  }

  void namenodeCalled() {
    namenodeCalls.increment();
  }

  void synced(int batch, long nanos) {
    syncs.increment();
    records.increment(batch);
    batchSize.update(batch);
    syncMicros.update(nanos / 1_000);
  }
}
