package org.gstore.recovery;

import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells an operator when one of this leader's thresholds stops advancing, as the recovery middleware's paper asks
 * (end of section 3.2): commits that stay unshipped (T_F held back: HBase does not take the shipper's writes),
 * commits that stay unpersisted (T_P held back: a live region server does not claim), commits HBase refuses for good
 * (quarantined), and persistence heartbeats that keep failing. Nothing is lost meanwhile (the commits are in the
 * WAL), but the WAL cannot be truncated and a leader holds every unpersisted commit in memory.
 *
 * <p>Each cause is logged once, as a WARN naming the remedy, when it begins, and once as an INFO when it ends; it is
 * {@link #active} meanwhile, for a metric to alert on. Checked every heartbeat period, on a thread of its own (a
 * heartbeat that hangs is itself an alert).
 */
public final class ThresholdAlerts {
  private static final Logger LOG = LoggerFactory.getLogger(ThresholdAlerts.class);

  /** Why a threshold does not advance, and what the operator can do. */
  public enum Cause {
    SHIPPING_BLOCKED("HBase does not take the update shipper's writes: check the member rows' regions (unassigned,"
        + " RegionTooBusyException, a full memstore) in the region server logs; the commits stay in the G-Store WAL"
        + " and are shipped once HBase takes them"),
    PERSISTENCE_BLOCKED("a live region server does not claim the shipments it persisted, so T_P (gstore status)"
        + " stays behind T_F and the WAL is not truncated: look for a server whose claim is old in gstore status"
        + " and check its log for persistence heartbeat failures; a server that is stuck may need a restart"),
    COMMIT_QUARANTINED("HBase refuses a commit for good (a column family or table dropped after it committed, a"
        + " quota): restore what it needs (docs/operations.md, \"Quarantined commits\"); it is retried every"
        + " gstore.shipper.quarantine.retry.ms (a minute by default)"),
    HEARTBEAT_FAILING("the persistence heartbeat fails at every beat, or one beat does not finish (ZooKeeper or"
        + " HBase's WAL sync unavailable or hung): check the region server's connection to ZooKeeper and its log"),
    REPLAY_BLOCKED("a region opened here waits for the replay of a dead server's G-Store WAL, and the groups it leads"
        + " do not serve until then: the log says why (\"cannot replay the WAL of dead servers yet\"): enable a"
        + " table the WAL writes that is disabled, restore what a refused commit needs, or repair a corrupt WAL"
        + " (docs/recovery.md)");

    private final String remedy;

    Cause(String remedy) {
      this.remedy = remedy;
    }

    public String remedy() {
      return remedy;
    }
  }

  /**
   * What a check found: the shipper's lag, its unpersisted and quarantined commits, T_P, heartbeat failures, how
   * long the heartbeat's current beat has been running (0: none runs), and how long the region that has waited
   * longest for a replay has waited (0: none waits).
   */
  public record Observation(long shippingLagMillis, long unpersisted, long persistedThrough, long quarantined,
      long heartbeatFailures, long beatRunningMillis, long replayWaitMillis) {
    /** Without a beat running or a replay awaited. */
    public Observation(long shippingLagMillis, long unpersisted, long persistedThrough, long quarantined,
        long heartbeatFailures) {
      this(shippingLagMillis, unpersisted, persistedThrough, quarantined, heartbeatFailures, 0, 0);
    }
  }

  private final long shippingLagLimitMillis;
  private final long stalledLimitMillis;
  private final Set<Cause> active = EnumSet.noneOf(Cause.class);
  /** When T_P last advanced, or nothing was unpersisted. */
  private long persistenceProgressAt = Long.MIN_VALUE;
  private long persistedThrough = Long.MIN_VALUE;
  /** Since when every heartbeat failed; MIN_VALUE while they succeed. */
  private long failingSince = Long.MIN_VALUE;
  private long failures;

  /**
   * @param shippingLagLimitMillis how long a commit may wait to be shipped before the alert
   * @param stalledLimitMillis how long T_P may stay still with commits unpersisted, or heartbeats keep failing
   */
  public ThresholdAlerts(long shippingLagLimitMillis, long stalledLimitMillis) {
    this.shippingLagLimitMillis = shippingLagLimitMillis;
    this.stalledLimitMillis = stalledLimitMillis;
  }

  /** Updates the alerts from a heartbeat's observation at {@code now}; returns the active ones. */
  public synchronized Set<Cause> check(Observation o, long now) {
    if (o.unpersisted() == 0 || o.persistedThrough() != persistedThrough || persistenceProgressAt == Long.MIN_VALUE) {
      persistenceProgressAt = now;
      persistedThrough = o.persistedThrough();
    }
    if (o.heartbeatFailures() == failures) {
      failingSince = Long.MIN_VALUE;
    } else if (failingSince == Long.MIN_VALUE) {
      failingSince = now;
    }
    failures = o.heartbeatFailures();

    set(Cause.SHIPPING_BLOCKED, o.shippingLagMillis() > shippingLagLimitMillis,
        "the oldest unshipped commit waits for " + o.shippingLagMillis() + " ms");
    set(Cause.PERSISTENCE_BLOCKED, now - persistenceProgressAt > stalledLimitMillis,
        o.unpersisted() + " commits shipped but not persisted, and T_P stayed at " + o.persistedThrough() + " for "
            + (now - persistenceProgressAt) + " ms");
    set(Cause.COMMIT_QUARANTINED, o.quarantined() > 0, o.quarantined() + " commits quarantined");
    boolean failing = failingSince != Long.MIN_VALUE && now - failingSince >= stalledLimitMillis;
    set(Cause.HEARTBEAT_FAILING, failing || o.beatRunningMillis() >= stalledLimitMillis, failing
        ? "every persistence heartbeat failed for " + (now - failingSince) + " ms"
        : "a persistence heartbeat has been running for " + o.beatRunningMillis() + " ms");
    set(Cause.REPLAY_BLOCKED, o.replayWaitMillis() > stalledLimitMillis,
        "a region has waited " + o.replayWaitMillis() + " ms for the replay of a dead server's WAL");
    return active();
  }

  private void set(Cause cause, boolean on, String detail) {
    if (on && active.add(cause)) {
      LOG.warn("G-Store alert {}: {}. Remedy: {}", cause, detail, cause.remedy());
    } else if (!on && active.remove(cause)) {
      LOG.info("G-Store alert {} cleared", cause);
    }
  }

  /** The causes active now. */
  public synchronized Set<Cause> active() {
    return active.isEmpty() ? Set.of() : EnumSet.copyOf(active);
  }

  public synchronized boolean isActive(Cause cause) {
    return active.contains(cause);
  }
}
