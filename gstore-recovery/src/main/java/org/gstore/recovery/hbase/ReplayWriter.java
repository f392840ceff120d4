package org.gstore.recovery.hbase;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.gstore.common.protocol.GroupRef;
import org.gstore.recovery.CommitSink;
import org.gstore.recovery.Shipment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the commits a replay reads into HBase: retries while HBase may still take them (at most the attempt time),
 * skips a commit HBase refuses because its rows left the group since ({@link CommitApplier#fencedOut}), and on any
 * other refusal for good stops that commit's group (its later commits are not written either, so a group's commits
 * land in their order), which the caller keeps the log for until the cause is fixed; other groups go on.
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

  /**
   * Writes {@code batch} into HBase, but for the commits of groups in {@code stopped}; returns how many of its
   * commits were skipped. A group a commit of which HBase refuses for good is added to {@code stopped}, with why.
   */
  long write(List<Shipment> batch, Map<GroupRef, String> stopped) throws IOException {
    List<Shipment> going = batch.stream().filter(s -> !stopped.containsKey(s.group())).toList();
    if (going.size() < batch.size()) {
      return write(going, stopped);
    }
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
          return batch.size() > 1 ? writeOneByOne(batch, stopped) : skipIfFencedOut(batch.get(0), e, stopped);
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
  private long writeOneByOne(List<Shipment> batch, Map<GroupRef, String> stopped) throws IOException {
    long skipped = 0;
    for (Shipment s : batch) {
      skipped += write(List.of(s), stopped);
    }
    return skipped;
  }

  private static long skipIfFencedOut(Shipment commit, IOException refusal, Map<GroupRef, String> stopped) {
    if (!CommitApplier.fencedOut(refusal)) { // a dropped family, a quota: never skipped, the group waits
      String why = "HBase refuses its commit at timestamp " + commit.commitTs() + " for good: " + refusal;
      LOG.error("G-Store replay stops group {}: {}; the log is kept and replayed once the cause is fixed",
          commit.group().id(), why);
      stopped.put(commit.group(), why);
      return 0;
    }
    LOG.warn("G-Store replay skips a commit of group {} (timestamp {}): its rows left the group since ({})",
        commit.group().id(), commit.commitTs(), refusal.toString());
    return 1;
  }
}
