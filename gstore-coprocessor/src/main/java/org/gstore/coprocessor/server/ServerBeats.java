package org.gstore.coprocessor.server;

import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import org.gstore.coprocessor.txn.PersistedMarks;

/**
 * The server's periodic tasks, each on a thread of its own so that one stuck in ZooKeeper or HDFS does not delay
 * the other: the persistence heartbeat (claims what this server persisted, logs persisted marks, and logs the newest
 * checkpoint mark again when it alone pins its WAL stream), the alert check, and the fencing of departed servers' logs.
 */
final class ServerBeats {
  private final HeartbeatThread persistence;
  private final HeartbeatThread alerts;
  private final HeartbeatThread departures;

  /**
   * @param marks logs the persisted marks of groups HBase has caught up with, after each persistence beat
   * @param protocolLog the logged protocol state, or null when it is written to the tables directly
   * @param departures fences the logs of servers that left, run every {@code departurePollMillis}
   */
  ServerBeats(ThresholdWatch watch, PersistedMarks marks, LoggedStateStore protocolLog, long periodMillis,
      Runnable departures, long departurePollMillis, Function<String, ThreadFactory> threads) {
    this.persistence = new HeartbeatThread(() -> {
      watch.beat();
      marks.markPersisted(); // after the beat: what HBase persisted is known then
      if (protocolLog != null) {
        protocolLog.relogMarkIfPinning();
      }
    }, periodMillis, threads.apply("persistence"));
    this.alerts = new HeartbeatThread(watch::check, periodMillis, threads.apply("alerts"));
    this.departures = new HeartbeatThread(departures, departurePollMillis, threads.apply("departures"));
  }

  void start() {
    persistence.start();
    alerts.start();
    departures.start();
  }

  void stop() {
    persistence.stop();
    alerts.stop();
    departures.stop();
  }

  /** Runs {@code then} once no persistence beat runs any more ({@link HeartbeatThread#afterStopped}). */
  void afterStopped(Runnable then) {
    persistence.afterStopped(then);
  }
}
