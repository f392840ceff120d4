package org.gstore.coprocessor.concurrent;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A daemon thread that hands whatever has queued up, in order, as one batch to a handler: the shape of every
 * group-commit stage here (protocol state writer, WAL streams, update shipper). The handler deals with the
 * failures it expects; anything it throws anyway goes to its failure handler with the batch (to fail that batch's
 * callers), is logged and counted ({@code workerFailures}), and the thread goes on with the next batch. It only
 * stops when closed.
 */
public final class BatchingThread<T> implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(BatchingThread.class);
  private static final AtomicLong FAILURES = new AtomicLong();

  private final BlockingQueue<T> queue = new LinkedBlockingQueue<>();
  private final Consumer<List<T>> handler;
  private final BiConsumer<List<T>, Throwable> onFailure;
  private final Thread thread;
  private volatile boolean closed;

  public BatchingThread(String name, Consumer<List<T>> handler) {
    this(name, handler, (batch, e) -> { });
  }

  /** @param onFailure told of a batch the handler threw on; it must not throw (what it throws is logged) */
  public BatchingThread(String name, Consumer<List<T>> handler, BiConsumer<List<T>, Throwable> onFailure) {
    this.handler = handler;
    this.onFailure = onFailure;
    this.thread = new Thread(this::run, name);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  public void add(T item) {
    queue.add(item);
  }

  public boolean isClosed() {
    return closed;
  }

  private void run() {
    List<T> batch = new ArrayList<>();
    while (!closed) {
      try {
        batch.add(queue.take());
      } catch (InterruptedException e) {
        continue; // closed (the loop ends), or an interrupt meant for a batch already done
      }
      queue.drainTo(batch);
      try {
        handler.accept(batch);
      } catch (Throwable e) { // NOPMD: a worker must survive anything, even an Error from a bad input
        FAILURES.incrementAndGet();
        LOG.error("{} failed on a batch of {}; failing that batch and going on", thread.getName(), batch.size(), e);
        try {
          onFailure.accept(batch, e);
        } catch (Throwable again) {
          LOG.error("{} could not fail its batch", thread.getName(), again);
        }
      }
      batch.clear();
    }
  }

  /**
   * Interrupts the batch in hand, if any, at its next blocking call (the handler sees an interrupt); the thread
   * goes on with the next batch.
   */
  public void interruptBatch() {
    thread.interrupt();
  }

  /** Batches that any worker's handler threw on, since this JVM started. */
  public static long failures() {
    return FAILURES.get();
  }

  /**
   * Stops the thread, waiting at most {@code waitMillis} for the batch in hand (0: not at all), and returns what
   * was still queued.
   */
  public List<T> close(long waitMillis) {
    closed = true;
    thread.interrupt();
    if (waitMillis > 0) { // Thread.join(0) would wait forever for a handler stuck in I/O
      try {
        thread.join(waitMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    List<T> left = new ArrayList<>();
    queue.drainTo(left);
    return left;
  }

  @Override
  public void close() {
    close(0);
  }
}
