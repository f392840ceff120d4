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

  private final Runnable heartbeat;
  private final long periodMillis;
  private final ScheduledExecutorService thread;

  HeartbeatThread(Runnable heartbeat, long periodMillis, ThreadFactory threads) {
    this.heartbeat = heartbeat;
    this.periodMillis = periodMillis;
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
   * Whether no beat runs any more (a beat still running could publish a claim after the server unregistered);
   * waits at most 10 s.
   */
  boolean awaitStopped() {
    try {
      return thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
