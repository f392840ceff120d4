package org.gstore.recovery.hbase;

import java.io.IOException;
import java.util.List;
import org.gstore.recovery.CommitSink;
import org.gstore.recovery.Shipment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the commits a replay reads into HBase: retries while HBase may still take them (at most the attempt time),
 * skips a commit HBase refuses because its rows left the group since ({@link CommitApplier#fencedOut}), and stops the
 * replay on any other refusal for good, so that the log is kept until the cause is fixed.
 */
final class ReplayWriter {
  private static final Logger LOG = LoggerFactory.getLogger(ReplayWriter.class);

  /** Waits between attempts; throws if the recovery must stop meanwhile. */
  @FunctionalInterface
  interface Pause {
    void pause(long millis) throws IOException;
  }

  private final CommitSink applier;
  private final long attemptMillis;
  private final Pause pause;

  ReplayWriter(CommitSink applier, long attemptMillis, Pause pause) {
    this.applier = applier;
    this.attemptMillis = attemptMillis;
    this.pause = pause;
  }

  /** Writes {@code batch} into HBase; returns how many of its commits were skipped. */
  long write(List<Shipment> batch) throws IOException {
    if (batch.isEmpty()) {
      return 0;
    }
    long backoff = 100;
    long deadline = System.currentTimeMillis() + attemptMillis;
    while (true) {
      try {
        applier.apply(batch);
        return 0;
      } catch (IOException e) {
        if (CommitApplier.refusedForGood(e)) {
          return batch.size() > 1 ? writeOneByOne(batch) : skipIfFencedOut(batch.get(0), e);
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IOException("HBase did not take its writes for " + attemptMillis + " ms: " + e, e);
        }
        LOG.warn("G-Store replay could not write {} commits yet; retrying in {} ms ({})", batch.size(), backoff,
            e.toString());
        pause.pause(backoff);
        backoff = Math.min(backoff * 2, 2_000);
      }
    }
  }

  /** A commit of the batch was refused for good: each is written alone, so only that one is skipped. */
  private long writeOneByOne(List<Shipment> batch) throws IOException {
    long skipped = 0;
    for (Shipment s : batch) {
      skipped += write(List.of(s));
    }
    return skipped;
  }

  private static long skipIfFencedOut(Shipment commit, IOException refusal) throws IOException {
    if (!CommitApplier.fencedOut(refusal)) { // a dropped family, a quota: never skipped, the log waits
      throw new IOException("HBase refuses a commit of group " + commit.group().id() + " (timestamp "
          + commit.commitTs() + ") for good: " + refusal + "; the log is kept and replayed once the cause is"
          + " fixed", refusal);
    }
    LOG.warn("G-Store replay skips a commit of group {} (timestamp {}): its rows left the group since ({})",
        commit.group().id(), commit.commitTs(), refusal.toString());
    return 1;
  }
}
