package org.gstore.recovery;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntToLongFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One region server's part in the thresholds, run every {@code gstore.recovery.heartbeat.ms}:
 * <pre>
 *   as a server that receives shipped writes (Algorithm 3 of the recovery paper):
 *     1. read every leader's T_F            (ZooKeeper: gstore/flushed)
 *     2. sync this server's HBase WALs      (everything applied so far is now persisted)
 *     3. claim what was read in 1 as T_P    (ZooKeeper: gstore/persisted/this server)
 *   as a leader whose shipper holds unpersisted commits:
 *     4. publish its T_F
 *     5. read the live servers and every claim; for each server that died since the last beat, ship again
 *        what it had not claimed (its regions' new hosts take it), and once more when its zombie window
 *        closes; then drop what every server has claimed and no suspect's last claim holds back
 *     6. delete the WAL files no replay needs
 * </pre>
 * A beat publishes only what changed (ZooKeeper syncs every write to its disk). A beat that fails (ZooKeeper or HDFS
 * unavailable) changes nothing and is retried at the next one: the shipper just holds its commits longer.
 */
public final class PersistenceHeartbeat implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(PersistenceHeartbeat.class);

  /** Makes everything this region server has applied so far durable in its HBase WALs. */
  public interface WalSync {
    void syncAll() throws IOException;
  }

  /** Deletes the leader's WAL files that no replay needs (the shared WAL's {@code truncate}). */
  public interface WalTruncation {
    int truncate(IntToLongFunction neededAbove, long retainMillis) throws IOException;
  }

  private final String self;
  private final String log;
  private final ClaimStore znodes;
  private final WalSync walSync;
  private final ShipmentLedger shipper;
  private final WalTruncation wal;
  private final LongSupplier clock;
  private final PersistenceTracker tracker;
  private final long retainMillis;
  private volatile long persistedThrough = -1;
  private volatile long failures;
  private volatile long deathsSeen;
  private volatile long walFilesDeleted;
  private Map<String, Long> claimed;
  private long published = Long.MIN_VALUE;

  /**
   * @param self this region server's name: its claims
   * @param log this G-Store instance's {@link LogId}: what its shipper's numbers are claimed under
   * @param retainMillis how long dead servers' claims and closed WAL files are kept
   * @param zombieWindowMillis how long a dead server may still acknowledge writes ({@link PersistenceTracker})
   */
  public PersistenceHeartbeat(String self, String log, ClaimStore znodes, WalSync walSync, ShipmentLedger shipper,
      WalTruncation wal, LongSupplier clock, long retainMillis, long zombieWindowMillis) {
    this.self = self;
    this.log = log;
    this.znodes = znodes;
    this.walSync = walSync;
    this.shipper = shipper;
    this.wal = wal;
    this.clock = clock;
    this.retainMillis = retainMillis;
    this.tracker = new PersistenceTracker(retainMillis, zombieWindowMillis);
  }

  @Override
  public void run() {
    try {
      beat();
    } catch (IOException e) {
      failures++;
      LOG.warn("G-Store persistence heartbeat failed ({}); retrying at the next one", e.toString());
    } catch (Throwable e) { // NOPMD: an escaping throwable would cancel every later heartbeat
      failures++;
      LOG.error("G-Store persistence heartbeat failed unexpectedly; retrying at the next one", e);
    }
  }

  private void beat() throws IOException {
    Map<String, Long> flushed = new HashMap<>();
    znodes.flushed().values().forEach(f -> flushed.put(f.log(), f.shippedThrough()));
    if (!flushed.equals(claimed)) { // ZooKeeper writes are synced to its disk: none when nothing changed
      walSync.syncAll();
      znodes.publishClaim(self, flushed);
      claimed = flushed;
    }
    long shippedThrough = shipper.shippedThrough();
    if (shippedThrough != published) {
      znodes.publishFlushed(self, new ClaimStore.Flushed(log, shippedThrough));
      published = shippedThrough;
    }
    // claims first: a server whose claim is gone but that still reads as live unregistered, never died unseen
    Map<String, Map<String, Long>> claims = znodes.claims();
    PersistenceTracker.Heartbeat hb = tracker.heartbeat(znodes.liveServers(), claims, clock.getAsLong());
    for (PersistenceTracker.Death death : hb.deaths()) {
      int again = shipper.shipAgainAbove(death.persistedThrough(log));
      deathsSeen++;
      if (again > 0) {
        LOG.info("G-Store ships {} commits again: region server {} died before persisting them", again,
            death.server());
        OutageStep.instant(OutageStep.Kind.SHIP_AGAIN, self, death.server(), log, "unpersisted=" + again);
      }
    }
    for (PersistenceTracker.Death suspect : hb.zombieWindowsClosed()) {
      shipper.distrust(); // a batch in flight may yet be acknowledged by the zombie
      int again = shipper.shipAgainAbove(suspect.persistedThrough(log));
      if (again > 0) {
        LOG.info("G-Store ships {} commits again that region server {} may have acknowledged after it was declared"
            + " dead", again, suspect.server());
        OutageStep.instant(OutageStep.Kind.SHIP_AGAIN, self, suspect.server(), log, "after-zombie-window=" + again);
      }
    }
    if (hb.shipEverythingAgain()) {
      shipper.distrust(); // a server that came and went unseen may have a zombie answering batches in flight
      int again = shipper.shipAgainAbove(-1);
      LOG.warn("G-Store persistence heartbeats stalled for longer than {} ms: shipping {} unpersisted commits"
          + " again, in case a server came and went meanwhile", retainMillis, again);
    }
    int retried = shipper.retryQuarantined(clock.getAsLong());
    if (retried > 0) {
      LOG.warn("G-Store ships {} quarantined commits again (HBase refused them for good before; see"
          + " docs/operations.md, \"Quarantined commits\")", retried);
    }
    persistedThrough = tracker.persistedThrough(log);
    shipper.forgetPersistedThrough(persistedThrough);
    walFilesDeleted += wal.truncate(shipper::walNeededAbove, retainMillis);
  }

  /** T_P of this leader: every region server has persisted its shipments through this one. */
  public long persistedThrough() {
    return persistedThrough;
  }

  public long failures() {
    return failures;
  }

  public long deathsSeen() {
    return deathsSeen;
  }

  public long walFilesDeleted() {
    return walFilesDeleted;
  }
}
