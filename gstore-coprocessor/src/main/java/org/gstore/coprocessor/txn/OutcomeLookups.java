package org.gstore.coprocessor.txn;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.hbase.RegionTooBusyException;
import org.gstore.common.protocol.GroupRef;
import org.gstore.coprocessor.wal.UpdateShipper;
import org.gstore.recovery.CommittedTxns;

/**
 * Looks up whether a transaction committed when its leader's memory cannot tell ({@link GroupCache}), off the
 * group's commit lock: it waits for the commits the cache forgot to be shipped (each with its outcome row), then
 * reads {@link CommittedTxns}. Both are HBase I/O that a region in transition can stretch to HBase's operation
 * timeout, so they run on threads of their own, and the caller waits at most the endpoint wait: a lookup slower
 * than that answers "try again" ({@link RegionTooBusyException}, retried by HBase's client), and the retry joins
 * the lookup still running instead of starting another.
 */
final class OutcomeLookups {
  /** At most this many lookups wait for a thread; more are told to try again. */
  private static final int QUEUED_AT_MOST = 256;

  /** A lookup's key: its answer holds for the commits forgotten up to {@code forgottenThrough} only. */
  private record Lookup(GroupRef group, String txnId, long forgottenThrough) {}

  private final UpdateShipper shipper;
  private final CommittedTxns committed;
  private final long waitMillis;
  private final ExecutorService threads;
  private final ConcurrentHashMap<Lookup, CompletableFuture<OptionalLong>> running = new ConcurrentHashMap<>();

  OutcomeLookups(UpdateShipper shipper, CommittedTxns committed, long waitMillis) {
    this.shipper = shipper;
    this.committed = committed;
    this.waitMillis = waitMillis;
    ThreadPoolExecutor pool = new ThreadPoolExecutor(4, 4, 60, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(QUEUED_AT_MOST), r -> {
          Thread t = new Thread(r, "gstore-outcome-lookup");
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
    this.threads = pool;
  }

  /**
   * The commit timestamp of {@code txnId} if it committed in {@code group} at this server's earlier leaders or
   * among the commits this leader forgot up to {@code forgottenThrough}; empty if it did not.
   *
   * @throws RegionTooBusyException if the answer is not known within the endpoint wait (the caller retries)
   */
  OptionalLong commitTs(GroupRef group, String txnId, long forgottenThrough) throws IOException {
    Lookup key = new Lookup(group, txnId, forgottenThrough);
    CompletableFuture<OptionalLong> lookup = running.computeIfAbsent(key, this::start);
    try {
      OptionalLong ts = lookup.get(waitMillis, TimeUnit.MILLISECONDS);
      running.remove(key, lookup);
      return ts;
    } catch (TimeoutException e) {
      throw new RegionTooBusyException("looking up whether transaction " + txnId + " of group " + group.id()
          + " committed before takes longer than " + waitMillis + " ms; retry");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted looking up the outcome of transaction " + txnId);
    } catch (ExecutionException e) {
      running.remove(key, lookup);
      throw e.getCause() instanceof IOException io ? io
          : new IOException("looking up the outcome of transaction " + txnId + " failed", e.getCause());
    }
  }

  /** Starts a lookup; the thread that runs it forgets it once done (a later caller starts afresh). */
  private CompletableFuture<OptionalLong> start(Lookup key) {
    CompletableFuture<OptionalLong> lookup = new CompletableFuture<>();
    try {
      threads.execute(() -> {
        try {
          shipper.awaitShipped(key.group(), key.forgottenThrough(), TimeUnit.MINUTES.toMillis(1));
          lookup.complete(committed.commitTs(key.group().id(), key.txnId()));
        } catch (IOException | RuntimeException e) {
          lookup.completeExceptionally(e);
        } finally {
          running.remove(key, lookup);
        }
      });
    } catch (RejectedExecutionException e) {
      lookup.completeExceptionally(new RegionTooBusyException("too many outcome lookups waiting; retry"));
    }
    return lookup;
  }

  void close() {
    threads.shutdownNow();
  }
}
