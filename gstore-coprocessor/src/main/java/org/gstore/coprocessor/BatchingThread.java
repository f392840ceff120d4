package org.gstore.coprocessor;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * A daemon thread that hands whatever has queued up, in order, as one batch to a handler: the shape of every
 * group-commit stage here (protocol state writer, WAL streams, update shipper). The handler deals with its own
 * failures; the thread only stops when closed.
 */
final class BatchingThread<T> implements Closeable {
  private final BlockingQueue<T> queue = new LinkedBlockingQueue<>();
  private final Consumer<List<T>> handler;
  private final Thread thread;
  private volatile boolean closed;

  BatchingThread(String name, Consumer<List<T>> handler) {
    this.handler = handler;
    this.thread = new Thread(this::run, name);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  void add(T item) {
    queue.add(item);
  }

  boolean isClosed() {
    return closed;
  }

  private void run() {
    List<T> batch = new ArrayList<>();
    while (!closed) {
      try {
        batch.add(queue.take());
      } catch (InterruptedException e) {
        return;
      }
      queue.drainTo(batch);
      handler.accept(batch);
      batch.clear();
    }
  }

  /** Stops the thread (waiting briefly for the batch in hand) and returns what was still queued. */
  List<T> close(long waitMillis) {
    closed = true;
    thread.interrupt();
    try {
      thread.join(waitMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
