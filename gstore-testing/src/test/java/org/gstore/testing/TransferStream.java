package org.gstore.testing;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.TableName;
import org.gstore.client.CommitOutcomeUnknownException;
import org.gstore.client.KeyGroup;

/**
 * Moves 1 from one account to another through {@link KeyGroup#transact}, over and over on its own thread, while a
 * test makes faults, and counts how each call ended. Exactly once means: the receiving account gained exactly
 * {@link Counts#returned()} (every call that returned took effect once, every call that threw anything but
 * {@link CommitOutcomeUnknownException} took none).
 */
final class TransferStream implements AutoCloseable {
  /** How the calls ended. */
  record Counts(long returned, long failed, long unknown) {}

  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong returned = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong unknown = new AtomicLong();
  private final ExecutorService thread = Executors.newSingleThreadExecutor();
  private final Future<?> running;

  TransferStream(KeyGroup group, TableName table, byte[] from, byte[] to) {
    running = thread.submit(() -> {
      while (!stop.get()) {
        try {
          Accounts.transfer(group, table, from, to, 1);
          returned.incrementAndGet();
        } catch (CommitOutcomeUnknownException e) {
          unknown.incrementAndGet();
        } catch (IOException e) { // a read that found no leader: nothing was committed; the caller tries again
          failed.incrementAndGet();
        }
      }
      return null;
    });
  }

  long returned() {
    return returned.get();
  }

  /** Stops after the call under way; returns the counts. */
  Counts stop() throws Exception {
    stop.set(true);
    running.get(5, TimeUnit.MINUTES);
    return new Counts(returned.get(), failed.get(), unknown.get());
  }

  @Override
  public void close() {
    stop.set(true);
    thread.shutdownNow();
  }
}
