package org.gstore.coprocessor.server;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.gstore.common.protocol.NodeId;
import org.gstore.coprocessor.config.GStoreConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Faults a chaos run injects into this region server, on test clusters only ({@link GStoreConfig#TEST_FAULTS_ENABLED}):
 * its datagrams to some peers dropped (a partition, one way; both ways when the peer drops too), and its G-Store
 * clock (the one commits are stamped with and leases are timed by) moved by up to the 30 s HBase tolerates. Each
 * lasts a given time and ends by itself, so a chaos run that dies leaves nothing behind. A server without the key
 * refuses them. Thread-safe.
 */
public final class TestFaults {
  private static final Logger LOG = LoggerFactory.getLogger(TestFaults.class);
  /** HBase refuses a region server whose clock is further off than this from the master's. */
  static final long MAX_SKEW_MILLIS = 30_000;

  /** One fault: what it does, and until when (System.nanoTime). */
  private record Active(Set<NodeId> dropTo, long skewMillis, long untilNanos) {}

  private final boolean enabled;
  private final LongSupplier wallClock;
  private volatile Active active;

  TestFaults(boolean enabled, LongSupplier wallClock) {
    this.enabled = enabled;
    this.wallClock = wallClock;
  }

  /**
   * Drops this server's datagrams to {@code dropTo} and moves its G-Store clock by {@code skewMillis}, for
   * {@code durationMillis}; replaces a fault still running.
   *
   * @throws DoNotRetryIOException if this server does not take test faults, or the fault is out of bounds
   */
  void inject(Set<NodeId> dropTo, long skewMillis, long durationMillis) throws DoNotRetryIOException {
    if (!enabled) {
      throw new DoNotRetryIOException("this region server takes no test faults: " + GStoreConfig.TEST_FAULTS_ENABLED
          + " is for test clusters only, and is not set here");
    }
    if (Math.abs(skewMillis) > MAX_SKEW_MILLIS || durationMillis <= 0 || durationMillis > 600_000) {
      throw new DoNotRetryIOException("a test fault moves the clock by at most " + MAX_SKEW_MILLIS + " ms and lasts"
          + " 1 ms to 10 minutes, not " + skewMillis + " ms for " + durationMillis + " ms");
    }
    active = new Active(Set.copyOf(dropTo), skewMillis,
        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(durationMillis));
    LOG.warn("G-Store TEST FAULT for {} ms: datagrams to {} dropped, G-Store clock moved by {} ms", durationMillis,
        dropTo, skewMillis);
  }

  private Active current() {
    Active a = active;
    return a != null && System.nanoTime() < a.untilNanos() ? a : null;
  }

  /** Whether a datagram to {@code peer} is dropped now. */
  boolean drops(NodeId peer) {
    Active a = current();
    return a != null && a.dropTo().contains(peer);
  }

  /** G-Store's clock: the wall clock, moved while a skew lasts. */
  long now() {
    Active a = current();
    return wallClock.getAsLong() + (a == null ? 0 : a.skewMillis());
  }
}
