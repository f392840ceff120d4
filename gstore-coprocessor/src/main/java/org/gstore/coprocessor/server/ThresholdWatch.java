package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.gstore.recovery.PersistenceHeartbeat;
import org.gstore.recovery.ShipmentLedger;
import org.gstore.recovery.ThresholdAlerts;
import org.gstore.recovery.hbase.RecoveryZnodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One beat of the persistence heartbeat, then the check of this leader's thresholds ({@link ThresholdAlerts}),
 * whose active alerts are published in ZooKeeper when they change, for {@code gstore status}.
 */
final class ThresholdWatch implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(ThresholdWatch.class);

  private final String server;
  private final PersistenceHeartbeat heartbeat;
  private final ShipmentLedger ledger;
  private final ThresholdAlerts alerts;
  private final RecoveryZnodes znodes;
  private final LongSupplier clock;
  /** What ZooKeeper holds for this server; null until published (a new instance clears what an old one left). */
  private Set<ThresholdAlerts.Cause> published;

  ThresholdWatch(String server, PersistenceHeartbeat heartbeat, ShipmentLedger ledger, ThresholdAlerts alerts,
      RecoveryZnodes znodes, LongSupplier clock) {
    this.server = server;
    this.heartbeat = heartbeat;
    this.ledger = ledger;
    this.alerts = alerts;
    this.znodes = znodes;
    this.clock = clock;
  }

  @Override
  public void run() {
    heartbeat.run();
    long now = clock.getAsLong();
    Set<ThresholdAlerts.Cause> active = alerts.check(new ThresholdAlerts.Observation(ledger.lagMillis(now),
        ledger.unpersistedCount(), heartbeat.persistedThrough(), ledger.quarantinedCount(), heartbeat.failures()),
        now);
    if (active.equals(published)) {
      return;
    }
    Set<String> names = new TreeSet<>();
    active.forEach(cause -> names.add(cause.name()));
    try {
      znodes.publishAlerts(server, names);
      published = active;
    } catch (IOException e) {
      LOG.debug("G-Store could not publish its alerts {} yet ({}); retrying at the next heartbeat", names,
          e.toString());
    }
  }
}
