package org.gstore.coprocessor.server;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.util.List;
import org.apache.hadoop.hbase.regionserver.Region;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.StateChange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies durable ownership changes to this server's in-memory fences ({@link HostedRegions}): a row a group now
 * owns is fenced under the row's lock, so a plain write already past the fence check finishes before the row counts
 * as the group's, and no later one gets through; a bulk load of the row's region admitted before the fence (bulk
 * loads take no row lock) ends before it counts either ({@link BulkLoadCommits}); a row given back is unfenced once no plain write can be stamped
 * below the group's commits ({@link SkewSafeRelease}).
 */
final class FenceUpdates {
  private static final Logger LOG = LoggerFactory.getLogger(FenceUpdates.class);
  private static final long RETRY_PAUSE_MILLIS = 20;
  private static final long BULK_LOAD_POLL_MILLIS = 5;
  private static final long WARN_EVERY_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

  private final HostedRegions hosted;
  private final SkewSafeRelease release;

  FenceUpdates(HostedRegions hosted, SkewSafeRelease release) {
    this.hosted = hosted;
    this.release = release;
  }

  /** Applies {@code changes}, which are durable; called by the protocol's writer thread only. */
  void apply(List<StateChange> changes) {
    for (StateChange c : changes) {
      if (c instanceof StateChange.PutOwner p) {
        if (p.record().group().equals(hosted.ownerOf(p.record().key()))) {
          continue; // joining -> yielded: already fenced to this group, no lock needed
        }
        fenceUnderRowLock(p.record().key(), () -> hosted.fence(p.record().key(), p.record().group()));
      } else if (c instanceof StateChange.RemoveOwner r) {
        release.release(r.key());
      }
    }
  }

  /**
   * Fences {@code key} under its row's exclusive lock, waiting as long as a plain write holds the shared one (a write
   * stalled in its WAL sync past {@code hbase.rowlock.wait.duration} still lands, and must land before the row
   * counts as the group's: the group's cache is read after the join's answer). Never fences without the lock; a
   * region that closed meanwhile is left to its next host, which loads the durable state and fences from it.
   */
  private void fenceUnderRowLock(Key key, Runnable fence) {
    long waitingSince = System.nanoTime();
    long nextWarning = waitingSince + WARN_EVERY_NANOS;
    while (true) {
      Region region = hosted.regionOf(key);
      if (region == null) {
        return; // the region closed meanwhile: its next host loads the durable state
      }
      Region.RowLock lock;
      try {
        lock = region.getRowLock(key.row(), false);
      } catch (java.io.InterruptedIOException e) {
        Thread.currentThread().interrupt(); // the writer halted: nothing more leaves, its next host fences
        return;
      } catch (IOException e) {
        if (System.nanoTime() >= nextWarning) {
          nextWarning = System.nanoTime() + WARN_EVERY_NANOS;
          LOG.warn("G-Store waits {} s for the row lock of {} to fence it for a group (a plain write holds it: {})",
              java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - waitingSince), key,
              e.toString());
        }
        try { // a lock wait that timed out took its time already; any other refusal must not spin the writer
          java.util.concurrent.TimeUnit.MILLISECONDS.sleep(RETRY_PAUSE_MILLIS);
        } catch (InterruptedException halted) {
          Thread.currentThread().interrupt();
          return;
        }
        continue;
      }
      try {
        fence.run();
      } finally {
        lock.release();
      }
      awaitBulkLoads(region, key);
      return;
    }
  }

  /**
   * Waits until no bulk load admitted before {@code key} was fenced can still commit cells into its region (bulk
   * loads take no row lock; see {@link BulkLoadCommits}). Loads that begin later see the fence and are refused, so
   * the wait is as long as the commits in flight.
   */
  private void awaitBulkLoads(Region region, Key key) {
    VarHandle.fullFence(); // the fence is written: now look for loads in flight (they look the other way round)
    String encoded = region.getRegionInfo().getEncodedName();
    long waitingSince = System.nanoTime();
    long nextWarning = waitingSince + WARN_EVERY_NANOS;
    while (hosted.bulkLoads().anyIn(encoded) && hosted.regionOf(key) == region) {
      if (System.nanoTime() >= nextWarning) {
        nextWarning = System.nanoTime() + WARN_EVERY_NANOS;
        LOG.warn("G-Store waits {} s for a bulk load into {} to end before {} counts as its group's",
            java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - waitingSince),
            region.getRegionInfo().getRegionNameAsString(), key);
      }
      try {
        java.util.concurrent.TimeUnit.MILLISECONDS.sleep(BULK_LOAD_POLL_MILLIS);
      } catch (InterruptedException halted) {
        Thread.currentThread().interrupt(); // the writer halted: nothing more leaves this server
        return;
      }
    }
  }
}
