package org.gstore.coprocessor.server;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.RegionTooBusyException;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.gstore.common.RowGroupedException;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.OwnerToken;
import org.gstore.coprocessor.config.TestPlant;

/**
 * Plain HBase writes against the groups' fences: a row a group owns takes only its leader's shipments (writes
 * carrying the owner token of that very group incarnation); any other row takes any write but a forged one.
 *
 * <p>{@link RowGroupedException} means exactly that a verified owner token names a group that does not own the row,
 * or that a plain write hit a grouped row: a replay skips a commit refused so (its rows left its group). A token
 * that does not verify gets another refusal, which a replay never skips.
 */
public final class WriteFence {
  private final HostedRegions hosted;
  private final OwnerToken ownerToken;
  /** False only on a test cluster with {@link TestPlant#SKIP_FENCE} planted. */
  private final boolean fencesPlainWrites;

  WriteFence(HostedRegions hosted, OwnerToken ownerToken) {
    this(hosted, ownerToken, TestPlant.NONE);
  }

  /** @param plant a defect planted on a test cluster: {@link TestPlant#SKIP_FENCE} lets plain writes into groups */
  WriteFence(HostedRegions hosted, OwnerToken ownerToken, TestPlant plant) {
    this.hosted = hosted;
    this.ownerToken = ownerToken;
    this.fencesPlainWrites = plant != TestPlant.SKIP_FENCE;
  }

  /**
   * A handler whose wait for a loading region ended without the load this long ago waits no more: a batch's
   * writes are each checked, and must not each wait.
   */
  private static final long NO_WAIT_AGAIN_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);
  /** Per RPC handler: when its last wait gave up (0: never). */
  private static final ThreadLocal<long[]> gaveUpAt = ThreadLocal.withInitial(() -> new long[1]);

  /**
   * Waits, at most {@link HostedRegions#LOAD_WAIT_MILLIS}, while region {@code info} loads its rows' group state,
   * so that a write arriving during a load is applied when the load ends rather than refused for all of it. Called
   * before HBase locks the write's row ({@code prePut}, {@code preDelete}, ...), never while a lock is held: a
   * close or a flush must not wait for it. A handler waits once per batch: after a wait that gave up, its next
   * writes for a while are checked at once.
   */
  public void awaitLoaded(RegionInfo info) {
    if (hosted.isWritable(info)) {
      return;
    }
    long[] gaveUp = gaveUpAt.get();
    if (gaveUp[0] != 0 && System.nanoTime() - gaveUp[0] < NO_WAIT_AGAIN_NANOS) {
      return;
    }
    if (!hosted.awaitWritable(info, HostedRegions.LOAD_WAIT_MILLIS)) {
      gaveUp[0] = System.nanoTime();
    }
  }

  /** Why {@code m}, to a row of region {@code info}, must not be applied; null if it may. */
  public IOException refusal(RegionInfo info, Mutation m) {
    if (!hosted.isWritable(info)) {
      return new RegionTooBusyException("G-Store is loading the group state of " + info.getRegionNameAsString()
          + "; retry");
    }
    Key key = Key.of(info.getTable().getNameAsString(), m.getRow());
    GroupRef owner = hosted.ownerOf(key);
    byte[] token = m.getAttribute(OwnerToken.ATTRIBUTE);
    if (owner == null && token == null || token == null && !fencesPlainWrites) {
      return null;
    }
    GroupRef claimed = token == null ? null : ownerToken.verify(token, key);
    if (token != null && claimed == null) {
      // not a fencing decision: a replay must keep such a commit (RowGroupedException would make it skip it)
      return new DoNotRetryIOException("the G-Store owner token of the write to row " + key + " does not verify:"
          + " it was made for another row, with a gstore.cluster.secret this server neither has nor accepts (see"
          + " gstore.cluster.secret.accepted while the secret is rotated), or forged");
    }
    if (owner != null && owner.equals(claimed)) {
      return null;
    }
    if (owner == null) {
      return new RowGroupedException("row " + key + " is not in any G-Store group, but the write claims group "
          + claimed.id());
    }
    return RowGroupedException.of(key.toString(), owner.id().toString());
  }

  /**
   * Why a bulk load into {@code info} must not happen, or null if it may: a group owns a row of the region, or the
   * region has not loaded its rows' group state yet (it cannot tell whether one does). Asked when the load arrives,
   * to refuse it early; {@link #bulkLoadCommitRefusal} decides.
   */
  public IOException bulkLoadRefusal(RegionInfo info) {
    if (!hosted.isWritable(info)) {
      return new RegionTooBusyException("G-Store is loading the group state of " + info.getRegionNameAsString()
          + "; retry the bulk load");
    }
    GroupRef owner = hosted.anyOwnerIn(info);
    return owner == null ? null : new RowGroupedException("bulk load into " + info.getRegionNameAsString()
        + " refused: rows of this region belong to G-Store groups (" + owner.id() + " among them); delete them"
        + " first");
  }

  /**
   * The deciding check of a bulk load into {@code info}, made as its store files commit: null admits the load,
   * which then counts as in flight in the region (a join fencing one of its rows waits for it) until
   * {@link #bulkLoadEnded}; otherwise why it must not happen, and nothing is counted.
   */
  public IOException bulkLoadCommitRefusal(RegionInfo info) {
    BulkLoadCommits loads = hosted.bulkLoads();
    loads.enter(info.getEncodedName());
    // the join fences its row, then looks for loads in flight; the load does the reverse: one sees the other
    VarHandle.fullFence();
    IOException refusal = bulkLoadRefusal(info);
    if (refusal != null) {
      loads.exit();
    }
    return refusal;
  }

  /** Called when a bulk load on this thread ended, committed or not (HBase's {@code postBulkLoadHFile}). */
  public void bulkLoadEnded() {
    hosted.bulkLoads().exit();
  }
}
