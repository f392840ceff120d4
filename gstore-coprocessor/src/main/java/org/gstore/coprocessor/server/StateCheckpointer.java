package org.gstore.coprocessor.server;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.gstore.common.protocol.log.Checkpoint;
import org.gstore.common.protocol.log.CheckpointQueue;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.coprocessor.concurrent.BatchingThread;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes this server's logged protocol records to the state tables in the background, the way the update shipper
 * ships commits: the oldest records first, collapsed to the newest change per row ({@link Checkpoint}), written
 * with their versions, so a row never goes back whatever lands late. Once a run is written, the checkpoint marker
 * moves past it and its records may leave the WAL ({@code written}). A {@link #flush} completes once every record
 * appended before it is written, however many arrive meanwhile: a closing region's next host, and a stopping
 * server's next instance, load from the tables. I/O errors are retried until the write succeeds or the
 * checkpointer is closed; flushes still waiting then fail, and a closing region hands over to the crash path.
 */
final class StateCheckpointer implements Closeable {
  /** Where checkpoints are written ({@link StateTables#writeVersioned}). */
  interface Tables {
    void writeVersioned(List<LoggedChange> changes) throws IOException;
  }

  /** Records per checkpoint at most: one batch per table, bounded. */
  static final int MAX_RECORDS = 256;
  private static final Object WAKE = new Object();
  private static final Logger LOG = LoggerFactory.getLogger(StateCheckpointer.class);

  /** A flush waiting for the marker to reach {@code target}. */
  private record Waiter(long target, CompletableFuture<Void> done) {}

  private final CheckpointQueue queue;
  private final Tables tables;
  private final LongConsumer written;
  private final long delayMillis;
  private final GStoreMetrics metrics;
  private final List<Waiter> waiters = new ArrayList<>();
  private final BatchingThread<Object> thread;

  /**
   * @param written told the sequence up to which every record is in the tables
   * @param delayMillis how long a record waits before the checkpoint that a {@link #appended} wakes (tests)
   */
  StateCheckpointer(String name, CheckpointQueue queue, Tables tables, LongConsumer written, long delayMillis,
      GStoreMetrics metrics) {
    this.queue = queue;
    this.tables = tables;
    this.written = written;
    this.delayMillis = delayMillis;
    this.metrics = metrics;
    this.thread = new BatchingThread<>("gstore-checkpointer-" + name, batch -> checkpoint(), (b, e) -> failed(e));
  }

  /** A record joined the queue: checkpoint it (after the delay, if any). */
  void appended() {
    if (delayMillis == 0) {
      thread.add(WAKE);
    } else {
      CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS).execute(() -> thread.add(WAKE));
    }
  }

  /** Completes once every record appended before the call is in the tables; fails if closed first. */
  CompletableFuture<Void> flush() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    synchronized (waiters) {
      long target = queue.lastAppended();
      if (queue.marker() >= target) {
        done.complete(null);
        return done;
      }
      if (thread.isClosed()) {
        done.completeExceptionally(new IllegalStateException("the protocol state checkpointer is closed"));
        return done;
      }
      waiters.add(new Waiter(target, done));
    }
    thread.add(WAKE);
    return done;
  }

  /** Records in the WAL not yet in the tables. */
  int pending() {
    return queue.pending();
  }

  /** Writes runs of the oldest records until none waits, answering each flush as soon as its records are in. */
  private void checkpoint() {
    while (queue.pending() > 0 && !thread.isClosed()) {
      Checkpoint c = queue.next(MAX_RECORDS);
      if (!writeRetrying(c)) {
        break;
      }
      queue.written(c);
      written.accept(c.upTo());
      answerWaiters(c.upTo());
    }
  }

  private void answerWaiters(long marker) {
    synchronized (waiters) {
      for (java.util.Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
        Waiter w = it.next();
        if (w.target() <= marker) {
          w.done().complete(null);
          it.remove();
        }
      }
    }
  }

  private boolean writeRetrying(Checkpoint c) {
    long backoff = Backoff.FIRST_MILLIS;
    while (!thread.isClosed()) {
      try {
        long start = System.nanoTime();
        tables.writeVersioned(c.changes());
        metrics.stateCheckpointed(System.nanoTime() - start);
        return true;
      } catch (IOException | RuntimeException e) { // a rejected or failed write: retried like an I/O error
        metrics.stateWriteFailed();
        LOG.warn("G-Store could not checkpoint protocol state; retrying in {} ms", backoff, e);
        Backoff.sleep(backoff);
        if (Thread.interrupted()) { // closed: what is not written stays in the WAL
          return false;
        }
        backoff = Backoff.next(backoff);
      }
    }
    return false;
  }

  private void failed(Throwable e) {
    metrics.stateWriteFailed();
    LOG.error("G-Store's protocol state checkpointer failed; it goes on with the next records", e);
  }

  /** Stops: flushes still waiting fail, and what is not in the tables stays in the WAL for a recovery. */
  @Override
  public void close() {
    thread.close();
    synchronized (waiters) {
      waiters.forEach(w -> w.done().completeExceptionally(
          new IllegalStateException("the protocol state checkpointer is closed")));
      waiters.clear();
    }
  }
}
