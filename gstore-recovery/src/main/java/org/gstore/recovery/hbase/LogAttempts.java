package org.gstore.recovery.hbase;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Attempts at one step of recovering dead logs (their protocol state, their commits), each run in the background
 * and at most one at a time per log. A region that needs a log recovered waits for its attempt a short while, never
 * for a stuck one (a table disabled, a state table in transition, HDFS stalled: an attempt may take minutes); the
 * regions asking after a failure learn of it at once until the log is tried again, {@code retryAfterMillis} later.
 * Whether a region must then wait for the log is its caller's decision ({@link FencedLogs}).
 *
 * @param <T> what an attempt returns
 */
final class LogAttempts<T> {
  /** One attempt at a log's step. */
  @FunctionalInterface
  interface Work<T> {
    T run() throws IOException;
  }

  private record Failure(long at, IOException cause) {}

  private final String step;
  private final long retryAfterMillis;
  private final ExecutorService threads;
  private final Map<String, CompletableFuture<T>> running = new ConcurrentHashMap<>();
  private final Map<String, Failure> failed = new ConcurrentHashMap<>();

  /** @param step what an attempt does, for thread names and errors ("replay", "protocol replay") */
  LogAttempts(String step, long retryAfterMillis) {
    this.step = step;
    this.retryAfterMillis = retryAfterMillis;
    this.threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "gstore-" + step.replace(' ', '-'));
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * The outcome of {@code log}'s attempt, waiting for it at most {@code waitMillis}; an attempt is started unless
   * one runs, or the last one failed less than the retry time ago.
   *
   * @throws IOException the attempt's failure (the last one's, if recent), or, if it outlives the wait, one saying
   *     so (it goes on, and a later call learns how it ended)
   */
  T await(String log, Work<T> work, long waitMillis) throws IOException {
    Failure last = failed.get(log);
    if (last != null && System.currentTimeMillis() - last.at() < retryAfterMillis) {
      throw last.cause();
    }
    CompletableFuture<T> attempt = running.computeIfAbsent(log, l -> start(l, work));
    try {
      return attempt.get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IOException("its " + step + " is still running");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for the " + step + " of " + log);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
  }

  /**
   * Starts an attempt at {@code log} unless one runs or the last one failed less than the retry time ago, without
   * waiting for it: for a log the caller does not need, which must still be recovered.
   */
  void startUnlessRecent(String log, Work<T> work) {
    Failure last = failed.get(log);
    if (last == null || System.currentTimeMillis() - last.at() >= retryAfterMillis) {
      running.computeIfAbsent(log, l -> start(l, work));
    }
  }

  private CompletableFuture<T> start(String log, Work<T> work) {
    CompletableFuture<T> attempt = new CompletableFuture<>();
    try {
      threads.execute(() -> {
        try {
          T result = work.run();
          failed.remove(log);
          attempt.complete(result);
        } catch (Throwable e) { // NOPMD: whatever ends an attempt is its failure, and regions must learn of it
          IOException cause = e instanceof IOException io ? io : new IOException("the " + step + " failed", e);
          failed.put(log, new Failure(System.currentTimeMillis(), cause));
          attempt.completeExceptionally(cause);
        } finally {
          running.remove(log, attempt);
        }
      });
    } catch (RejectedExecutionException closed) {
      attempt.completeExceptionally(new InterruptedIOException("G-Store is stopping; recovery resumes on the"
          + " next server"));
    }
    return attempt;
  }

  /** Stops: attempts running are interrupted, and none starts. */
  void close() {
    threads.shutdownNow();
  }
}
