package org.gstore.coprocessor.recovery;

import java.io.IOException;
import java.util.Map;
import org.gstore.common.recovery.PersistenceTracker;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.coprocessor.wal.UpdateShipper;
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
 *        what it had not claimed (its regions' new hosts take it); then drop what every server has claimed
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

  private final String self;
  private final RecoveryZnodes znodes;
  private final WalSync walSync;
  private final UpdateShipper shipper;
  private final SharedWal wal;
  private final PersistenceTracker tracker;
  private final long retainMillis;
  private volatile long persistedThrough = -1;
  private volatile long failures;
  private volatile long deathsSeen;
  private volatile long walFilesDeleted;
  private Map<String, Long> claimed;
  private long published = Long.MIN_VALUE;

  /** @param retainMillis how long dead servers' claims and closed WAL files are kept */
  public PersistenceHeartbeat(String self, RecoveryZnodes znodes, WalSync walSync, UpdateShipper shipper,
      SharedWal wal, long retainMillis) {
    this.self = self;
    this.znodes = znodes;
    this.walSync = walSync;
    this.shipper = shipper;
    this.wal = wal;
    this.retainMillis = retainMillis;
    this.tracker = new PersistenceTracker(retainMillis);
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
    Map<String, Long> flushed = znodes.flushed();
    if (!flushed.equals(claimed)) { // ZooKeeper writes are synced to its disk: none when nothing changed
      walSync.syncAll();
      znodes.publishClaim(self, flushed);
      claimed = flushed;
    }
    long shippedThrough = shipper.shippedThrough();
    if (shippedThrough != published) {
      znodes.publishFlushed(self, shippedThrough);
      published = shippedThrough;
    }
    PersistenceTracker.Heartbeat hb = tracker.heartbeat(znodes.liveServers(), znodes.claims(),
        System.currentTimeMillis());
    for (PersistenceTracker.Death death : hb.deaths()) {
      int again = shipper.shipAgainAbove(death.persistedThrough(self));
      deathsSeen++;
      if (again > 0) {
        LOG.info("G-Store ships {} commits again: region server {} died before persisting them", again,
            death.server());
      }
      tracker.forget(death.server());
    }
    if (hb.shipEverythingAgain()) {
      int again = shipper.shipAgainAbove(-1);
      LOG.warn("G-Store persistence heartbeats stalled for longer than {} ms: shipping {} unpersisted commits"
          + " again, in case a server came and went meanwhile", retainMillis, again);
    }
    persistedThrough = tracker.persistedThrough(self);
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
