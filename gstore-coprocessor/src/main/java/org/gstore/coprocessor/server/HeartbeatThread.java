package org.gstore.coprocessor.server;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a periodic task of the server (the persistence heartbeat, the alert check) every period on a thread of its
 * own, from {@link #start()} to {@link #stop()}, whatever a run throws.
 */
final class HeartbeatThread {
  private static final Logger LOG = LoggerFactory.getLogger(HeartbeatThread.class);
  /** How long {@link #afterStopped} waits for the last beat on its caller's thread. */
  static final long STOP_WAIT_MILLIS = 10_000;

  private final Runnable heartbeat;
  private final long periodMillis;
  private final ScheduledExecutorService thread;
  private final long stopWaitMillis;

  HeartbeatThread(Runnable heartbeat, long periodMillis, ThreadFactory threads) {
    this(heartbeat, periodMillis, threads, STOP_WAIT_MILLIS);
  }

  /** @param stopWaitMillis how long {@link #afterStopped} waits on the caller's thread (tests) */
  HeartbeatThread(Runnable heartbeat, long periodMillis, ThreadFactory threads, long stopWaitMillis) {
    this.heartbeat = heartbeat;
    this.periodMillis = periodMillis;
    this.stopWaitMillis = stopWaitMillis;
    this.thread = Executors.newSingleThreadScheduledExecutor(threads);
  }

  void start() {
    thread.scheduleWithFixedDelay(this::beat, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  /** One beat; whatever it throws, the next beat still runs (an escaping throwable would cancel them all). */
  private void beat() {
    try {
      heartbeat.run();
    } catch (Throwable e) { // NOPMD: see above
      LOG.error("G-Store periodic task failed unexpectedly; the next run goes as planned", e);
    }
  }

  /** Stops the heartbeat: no beat starts any more, and a beat running is interrupted. */
  void stop() {
    thread.shutdownNow();
  }

  /**
   * Runs {@code then} once no beat runs any more (a beat still running could publish a claim after it): at once if
   * the last beat ends within {@link #STOP_WAIT_MILLIS}, otherwise on a thread of its own when it does, so that a
   * beat stuck in ZooKeeper or HDFS delays {@code then} without holding the caller or skipping it. Call after
   * {@link #stop()}.
   */
  void afterStopped(Runnable then) {
    if (awaitStopped(stopWaitMillis)) {
      then.run();
      return;
    }
    LOG.warn("a G-Store periodic task did not stop within {} ms; what follows its stop waits for it", stopWaitMillis);
    Thread waiter = new Thread(() -> {
      if (awaitStopped(Long.MAX_VALUE)) {
        then.run();
      }
    }, "gstore-after-heartbeat");
    waiter.setDaemon(true);
    waiter.start();
  }

  private boolean awaitStopped(long millis) {
    try {
      return thread.awaitTermination(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
