package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;
import org.gstore.recovery.PersistenceHeartbeat;
import org.gstore.recovery.ShipmentLedger;
import org.gstore.recovery.ThresholdAlerts;
import org.gstore.recovery.hbase.RecoveryZnodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The persistence heartbeat's beats ({@link #beat}, on the heartbeat thread) and the check of this leader's
 * thresholds ({@link #check}, on a thread of its own, so that a beat that hangs is seen), whose active alerts are
 * published in ZooKeeper when they change, for {@code gstore status}.
 */
final class ThresholdWatch {
  private static final Logger LOG = LoggerFactory.getLogger(ThresholdWatch.class);

  private final String server;
  private final PersistenceHeartbeat heartbeat;
  private final ShipmentLedger ledger;
  private final ThresholdAlerts alerts;
  private final RecoveryZnodes znodes;
  private final LongSupplier clock;
  /** How long the region waiting longest for a replay has waited at a time (0: none waits). */
  private final LongUnaryOperator replayWait;
  /** When the beat running now began; MIN_VALUE while none runs. */
  private volatile long beatStartedAt = Long.MIN_VALUE;
  /** What ZooKeeper holds for this server; null until published (a new instance clears what an old one left). */
  private Set<ThresholdAlerts.Cause> published;

  ThresholdWatch(String server, PersistenceHeartbeat heartbeat, ShipmentLedger ledger, ThresholdAlerts alerts,
      RecoveryZnodes znodes, LongSupplier clock, LongUnaryOperator replayWait) {
    this.server = server;
    this.heartbeat = heartbeat;
    this.ledger = ledger;
    this.alerts = alerts;
    this.znodes = znodes;
    this.clock = clock;
    this.replayWait = replayWait;
  }

  /** One beat of the persistence heartbeat. */
  void beat() {
    beatStartedAt = clock.getAsLong();
    try {
      heartbeat.run();
    } finally {
      beatStartedAt = Long.MIN_VALUE;
    }
  }

  /** Checks the thresholds and publishes the active alerts when they changed. */
  void check() {
    long now = clock.getAsLong();
    long started = beatStartedAt;
    Set<ThresholdAlerts.Cause> active = alerts.check(new ThresholdAlerts.Observation(ledger.lagMillis(now),
        ledger.unpersistedCount(), heartbeat.persistedThrough(), ledger.quarantinedCount(), heartbeat.failures(),
        started == Long.MIN_VALUE ? 0 : Math.max(0, now - started), replayWait.applyAsLong(now)), now);
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
