package org.gstore.coprocessor.server;

import java.util.concurrent.ThreadFactory;
import java.util.function.Function;

/**
 * The server's periodic tasks, each on a thread of its own so that one stuck in ZooKeeper or HDFS does not delay
 * the other: the persistence heartbeat (claims what this server persisted, and logs the newest checkpoint mark again
 * when it alone pins its WAL stream) and the alert check.
 */
final class ServerBeats {
  private final HeartbeatThread persistence;
  private final HeartbeatThread alerts;

  /** @param protocolLog the logged protocol state, or null when it is written to the tables directly */
  ServerBeats(ThresholdWatch watch, LoggedStateStore protocolLog, long periodMillis,
      Function<String, ThreadFactory> threads) {
    this.persistence = new HeartbeatThread(() -> {
      watch.beat();
      if (protocolLog != null) {
        protocolLog.relogMarkIfPinning();
      }
    }, periodMillis, threads.apply("persistence"));
    this.alerts = new HeartbeatThread(watch::check, periodMillis, threads.apply("alerts"));
  }

  void start() {
    persistence.start();
    alerts.start();
  }

  void stop() {
    persistence.stop();
    alerts.stop();
  }

  /** Runs {@code then} once no persistence beat runs any more ({@link HeartbeatThread#afterStopped}). */
  void afterStopped(Runnable then) {
    persistence.afterStopped(then);
  }
}
