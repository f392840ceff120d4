package org.gstore.coprocessor.server;

import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.gstore.coprocessor.metrics.GaugeSources;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.recovery.PersistenceHeartbeat;
import org.gstore.recovery.ShipmentLedger;
import org.gstore.recovery.ThresholdAlerts;

/**
 * One server's place among its registry's gauge sources ({@link GaugeSources}): joined when the server is wired,
 * left when it closes, so a server that starts again on the same region server (a coprocessor reloaded) is read in
 * place of the closed one, never beside it.
 */
final class ServerGauges implements AutoCloseable {
  private final GaugeSources sources;
  private final GaugeSources.Server server;

  ServerGauges(MetricRegistry registry, ProtocolRuntime runtime, HostedRegions hosted, GroupDeletes deletes,
      ShipmentLedger shipper, PersistenceHeartbeat heartbeat, ThresholdAlerts alerts, SharedWal wal,
      LoggedStateStore stateLog) {
    this.sources = GaugeSources.of(registry);
    this.server = new GaugeSources.Server(runtime::stats, runtime::retryTimeoutMillis, runtime::groupsLed,
        hosted::fencedRows, deletes::held, shipper, heartbeat, alerts, () -> (long) wal.fileCount(),
        stateLog != null ? stateLog::pending : () -> 0);
    sources.add(server);
  }

  @Override
  public void close() {
    sources.remove(server);
  }
}
