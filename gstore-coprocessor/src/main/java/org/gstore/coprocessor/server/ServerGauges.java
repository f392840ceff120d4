package org.gstore.coprocessor.server;

import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.recovery.PersistenceHeartbeat;
import org.gstore.recovery.ShipmentLedger;
import org.gstore.recovery.ThresholdAlerts;

/**
 * Points the region server's G-Store gauges at one server's parts. The gauges are registered once per registry
 * ({@link GStoreMetrics#gauges}); a server that starts again on the same region server (a coprocessor reloaded)
 * points them at its new parts, so JMX never reads a closed server's.
 */
final class ServerGauges {
  private ServerGauges() {
  }

  static void point(MetricRegistry registry, ProtocolRuntime runtime, HostedRegions hosted, GroupDeletes deletes,
      ShipmentLedger shipper, PersistenceHeartbeat heartbeat, ThresholdAlerts alerts, SharedWal wal,
      LoggedStateStore stateLog) {
    GStoreMetrics.Sources gauges = GStoreMetrics.gauges(registry);
    gauges.stats = runtime::stats;
    gauges.retryTimeoutMillis = runtime::retryTimeoutMillis;
    gauges.groupsLed = runtime::groupsLed;
    gauges.fencedRows = hosted::fencedRows;
    gauges.deletesHeld = deletes::held;
    gauges.shipper = shipper;
    gauges.heartbeat = heartbeat;
    gauges.alerts = alerts;
    gauges.walFiles = () -> (long) wal.fileCount();
    gauges.protocolRecordsPending = stateLog != null ? stateLog::pending : () -> 0;
  }
}
