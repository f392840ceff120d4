package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.regionserver.Region;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.StateChange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies durable ownership changes to this server's in-memory fences ({@link HostedRegions}): a row a group now
 * owns is fenced under the row's lock, so a plain write already past the fence check finishes before the row counts
 * as the group's, and no later one gets through; a row given back is unfenced once no plain write can be stamped
 * below the group's commits ({@link SkewSafeRelease}).
 */
final class FenceUpdates {
  private static final Logger LOG = LoggerFactory.getLogger(FenceUpdates.class);

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

  private void fenceUnderRowLock(Key key, Runnable fence) {
    Region region = hosted.regionOf(key);
    if (region == null) {
      return; // the region closed meanwhile: its next host loads the durable state
    }
    Region.RowLock lock = null;
    try {
      lock = region.getRowLock(key.row(), false);
    } catch (IOException e) {
      LOG.debug("no row lock for {} ({}); fencing without it", key, e.toString());
    }
    try {
      fence.run();
    } finally {
      if (lock != null) {
        lock.release();
      }
    }
  }
}
