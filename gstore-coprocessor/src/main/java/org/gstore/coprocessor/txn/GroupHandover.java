package org.gstore.coprocessor.txn;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.config.TestPlant;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.wal.CommitLog;
import org.gstore.coprocessor.wal.UpdateShipper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group's commits leave this server's hands: the group is deleted ({@link #stopCommits}), or its leader region
 * closes ({@link #regionClosing}). Either way no commit of the group is taken here any more, and every one it made
 * is shipped to HBase before its rows are released or its region lets go, so that plain readers and the region's
 * next host see all of them. A persisted mark in the log then tells a replay not to write them again.
 */
public final class GroupHandover {
  private static final Logger LOG = LoggerFactory.getLogger(GroupHandover.class);

  private final GroupCaches caches;
  private final PersistedMarks marks;
  private final UpdateShipper shipper;
  private final GStoreMetrics metrics;
  private final long waitMillis;
  private final long maxFutureMillis;
  private final LongSupplier clock;
  /** False only on a test cluster with {@link TestPlant#SKIP_DRAIN} planted. */
  private final boolean drainsClosingRegions;

  /**
   * @param waitMillis how long one call waits for shipping ({@code gstore.endpoint.wait.ms})
   * @param maxFutureMillis how far ahead of the clock a commit may be stamped ({@code gstore.txn.max.future.ms})
   */
  public GroupHandover(GroupCaches caches, CommitLog wal, UpdateShipper shipper, GStoreMetrics metrics,
      long waitMillis, long maxFutureMillis, LongSupplier clock) {
    this(caches, wal, shipper, metrics, waitMillis, maxFutureMillis, clock, TestPlant.NONE);
  }

  /** @param plant a defect planted on a test cluster: {@link TestPlant#SKIP_DRAIN} lets closing regions go undrained */
  public GroupHandover(GroupCaches caches, CommitLog wal, UpdateShipper shipper, GStoreMetrics metrics,
      long waitMillis, long maxFutureMillis, LongSupplier clock, TestPlant plant) {
    this.caches = caches;
    this.marks = new PersistedMarks(caches, wal, shipper);
    this.shipper = shipper;
    this.metrics = metrics;
    this.waitMillis = waitMillis;
    this.maxFutureMillis = maxFutureMillis;
    this.clock = clock;
    this.drainsClosingRegions = plant != TestPlant.SKIP_DRAIN;
  }

  /**
   * Stops commits on a group about to be deleted: every later commit is refused, every earlier one is in the WAL
   * and handed to the shipper. Empty if this server has no cache of the group (nothing committed since it loaded).
   * The group's rows must not be released before {@link Release#awaitDurable} returns.
   */
  public Optional<Release> stopCommits(GroupId id) throws IOException {
    return Optional.ofNullable(caches.release(id)).map(StoppedGroup::new);
  }

  /** The waits of the endpoint ({@code gstore.endpoint.wait.ms}), which a delete's first attempt takes. */
  public long waitMillis() {
    return waitMillis;
  }

  /** A group whose commits were stopped, on its way to being deleted. */
  public interface Release {
    /** The incarnation whose commits were stopped. */
    GroupRef group();

    /**
     * Waits until everything the group committed is shipped to HBase and persisted there, and this server's clock
     * is past its newest commit, so plain writes made after the delete win over the group's. Each of those waits
     * takes at most {@code waitMillis}; may be called again after a failure.
     */
    void awaitDurable(long waitMillis) throws IOException;
  }

  private final class StoppedGroup implements Release {
    private final GroupCache cache;

    private StoppedGroup(GroupCache cache) {
      this.cache = cache;
    }

    @Override
    public GroupRef group() {
      return cache.group;
    }

    @Override
    public void awaitDurable(long waitMillis) throws IOException {
      cache.awaitSettled(waitMillis);
      shipper.drain(cache.group, waitMillis);
      awaitClockPast(cache, waitMillis);
      marks.log(cache);
      caches.forget(cache);
    }
  }

  /**
   * A leader region closes: refuse new commits of its groups (their clients retry at the next host), and ship
   * every commit they made before letting the region go, so the next host loads all of them. Waits as long as
   * shipping takes, saying so loudly: closing with commits unshipped would hide acknowledged commits from the next
   * host. Unless the whole region server is stopping: its other regions are closing too, so commits bound for them
   * cannot land until they open elsewhere, which is after this server is gone; the WAL keeps the commits, and the
   * next host of the group's region replays it before the group serves (as after a crash).
   */
  public void regionClosing(Predicate<Key> inRegion, BooleanSupplier serverStopping) throws InterruptedIOException {
    for (GroupCache cache : caches.closeRegion(inRegion)) {
      if (!drainsClosingRegions) {
        continue;
      }
      if (serverStopping.getAsBoolean()) {
        // no wait at all: HBase refuses every call to this server's regions from the moment it stops, so shipments
        // to them cannot land, and waits here hold the server's own stop (each region's in turn, on its main
        // thread) while every region it hosts, G-Store's or not, stays closed to clients
        int pending = shipper.ledger().pendingCount(cache.group);
        if (pending > 0) {
          LOG.info("G-Store is stopping with {} commits of group {} not shipped; they are in its WAL, which the"
              + " group's next leader replays before it serves", pending, cache.group.id());
        }
        caches.forget(cache);
        continue;
      }
      long started = clock.getAsLong();
      while (true) {
        try {
          cache.awaitSettled(waitMillis);
          shipper.drain(cache.group, waitMillis);
          marks.log(cache);
          break;
        } catch (InterruptedIOException e) {
          LOG.error("interrupted shipping group {} before its leader region closes; {} commits not shipped",
              cache.group.id(), shipper.ledger().pendingCount(cache.group));
          Thread.currentThread().interrupt();
          throw e; // the close must fail: the next host would load the group without them
        } catch (IOException e) {
          if (shipper.isClosed() || serverStopping.getAsBoolean()) {
            LOG.warn("G-Store is stopping with {} commits of group {} not shipped; they are in its WAL, which is"
                + " replayed before the group serves again", shipper.ledger().pendingCount(cache.group),
                cache.group.id());
            break;
          }
          metrics.closeWaitedForShipping();
          LOG.warn("the leader region of group {} waits for {} commits to be shipped to HBase before it closes"
              + " ({} ms so far): {}", cache.group.id(), shipper.ledger().pendingCount(cache.group),
              clock.getAsLong() - started, e.getMessage());
        }
      }
      caches.forget(cache);
    }
  }

  /**
   * Waits (at most {@code waitMillis}, in elapsed time: the clock itself may step) until this server's clock is past
   * the group's newest commit.
   */
  private void awaitClockPast(GroupCache cache, long waitMillis) throws IOException {
    long newest = cache.lastCommitTs();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
    long now;
    while ((now = clock.getAsLong()) <= newest) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        throw new IOException("group " + cache.group.id() + " has commits stamped up to " + newest + ", "
            + (newest - now) + " ms ahead of this server's clock; its members are released once the clock passes"
            + " it (at most " + maxFutureMillis + " ms, " + GStoreConfig.TXN_MAX_FUTURE_MS + "); retry");
      }
      try {
        TimeUnit.MILLISECONDS.sleep(Math.min(newest - now + 1, left));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted");
      }
    }
  }
}
