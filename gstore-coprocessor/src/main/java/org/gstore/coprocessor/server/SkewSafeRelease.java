package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.regionserver.Region;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.coprocessor.txn.LocalRows;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frees a row its group released only once this server's clock has passed every timestamp in the row. A group's
 * cells carry its leader's commit timestamps, and the leader waits for its own clock to pass them before it
 * releases; but a plain write to the row is stamped by the clock of the server hosting it, which may lag the
 * leader's (HBase tolerates {@code hbase.master.maxclockskew}, 30 s). Freed at once, such a write would be hidden
 * behind the group's newer cells, and read as lost. Meanwhile it is refused as a write to a grouped row ({@code RowGroupedException}, which
 * HBase's client does not retry: the writer retries it itself, or writes through a group). Costs one read of the row from its local region per released row; waits only under skew.
 */
final class SkewSafeRelease {
  private static final Logger LOG = LoggerFactory.getLogger(SkewSafeRelease.class);

  private final HostedRegions hosted;
  /** The clock HBase stamps plain writes with on this server. */
  private final LongSupplier clock;
  /** The longest wait: timestamps further ahead are refused at commit ({@code gstore.txn.max.future.ms}). */
  private final long maxWaitMillis;

  SkewSafeRelease(HostedRegions hosted, LongSupplier clock, long maxWaitMillis) {
    this.hosted = hosted;
    this.clock = clock;
    this.maxWaitMillis = maxWaitMillis;
  }

  /** Frees {@code key} from the group holding it now, at once or once this server's clock is past its cells. */
  void release(Key key) {
    GroupRef group = hosted.ownerOf(key);
    if (group == null) {
      return;
    }
    long now = clock.getAsLong();
    long newest = newestTimestamp(key, now, now + maxWaitMillis); // MIN_VALUE if none: never subtract from it
    if (newest < now) {
      hosted.unfence(key, group);
      return;
    }
    long wait = Math.min(newest + 1 - now, maxWaitMillis);
    LOG.info("G-Store frees {} in {} ms, once this server's clock is past the timestamps group {} wrote to it"
        + " (the leader's clock is ahead)", key, wait, group.id());
    CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS).execute(() -> hosted.unfence(key, group));
  }

  /**
   * The newest timestamp from {@code now} up to {@code horizon} of any cell or delete marker in the row, or
   * {@link Long#MIN_VALUE} if none is in that range; a wait as long as allowed if unreadable. Only that range is
   * read (a row's older versions and markers can be many, and this runs on the protocol's writer thread). Cells
   * stamped beyond the horizon are not the group's (a group refuses members stamped that far ahead, and stamps its
   * commits after them): a writer set them, and they hide plain writes with or without G-Store.
   */
  private long newestTimestamp(Key key, long now, long horizon) {
    Region region = hosted.regionOf(key);
    if (region == null) {
      return Long.MIN_VALUE; // closed meanwhile: the fence went with it
    }
    Scan scan = new Scan().withStartRow(key.row()).withStopRow(key.row(), true).setRaw(true).readAllVersions();
    try {
      return LocalRows.newestTimestamp(region, scan.setTimeRange(now, horizon + 1), Long.MIN_VALUE);
    } catch (IOException | RuntimeException e) { // NOPMD: never the writer thread's end
      LOG.warn("G-Store cannot read {} to free it ({}); freeing it in {} ms", key, e.toString(), maxWaitMillis);
      return clock.getAsLong() + maxWaitMillis;
    }
  }
}
