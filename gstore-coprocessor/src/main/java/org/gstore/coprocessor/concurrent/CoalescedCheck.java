package org.gstore.coprocessor.concurrent;

import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * A check that many threads ask for at once, run once for all of them: a group commit for checks, as the WAL has
 * for appends. Each caller gets the result of a run that <em>started after it asked</em>, so it learns what it
 * would have learned running the check itself at that moment. Callers that ask while a run is in progress share
 * the next run, which one of them starts as soon as the current one ends; with callers arriving faster than a
 * run takes, the check runs about once a run's time rather than once per caller.
 *
 * <p>A run that throws fails every caller it covers with that exception (the same instance, so its type tells
 * them what happened).
 */
public final class CoalescedCheck {
  /** The check itself; it may block (an RPC). */
  public interface Check {
    void run() throws IOException;
  }

  private final Check check;
  /** Runs started so far, one at a time: run n answers every caller that asked before it started. */
  private long started;
  /** Runs ended so far. */
  private long ended;
  private boolean running;
  /** What the last run that ended threw, or null if it passed. */
  private IOException lastFailure;
  private long runs;

  public CoalescedCheck(Check check) {
    this.check = check;
  }

  /** Returns once a run that started after this call passed; throws what such a run threw. */
  public void check() throws IOException {
    synchronized (this) {
      long mine = started + 1; // the first run to start after this call
      while (ended < mine) {
        if (!running) {
          running = true;
          started++;
          break; // this thread runs it, for itself and everyone waiting
        }
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted waiting for a check");
        }
      }
      if (ended >= mine) { // a run that started after this call ended: its result is this call's
        if (lastFailure != null) {
          throw lastFailure;
        }
        return;
      }
    }
    IOException failure = new IOException("the check did not end"); // until it ends: an Error is no pass
    try {
      check.run();
      failure = null;
    } catch (IOException e) {
      failure = e;
    } catch (RuntimeException e) { // NOPMD: the waiters must learn it failed, whatever it threw
      failure = new IOException("the check failed unexpectedly", e);
    } catch (Error e) { // NOPMD: rethrown to this thread below; the waiters are failed, not let through
      failure = new IOException("the check failed unexpectedly", e);
      throw e;
    } finally {
      synchronized (this) {
        ended = started;
        running = false;
        lastFailure = failure;
        runs++;
        notifyAll();
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** How many times the check ran. */
  public synchronized long runs() {
    return runs;
  }
}
