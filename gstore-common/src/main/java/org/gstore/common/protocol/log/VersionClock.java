package org.gstore.common.protocol.log;

import java.util.List;
import org.gstore.common.protocol.StateChange;

/**
 * Issues the versions that order the writes of one state row, whichever node writes it: a hybrid logical clock in
 * milliseconds. A version is at least the issuing node's wall clock, above every version this clock issued, and
 * above every version it {@linkplain #observe observed}. A node observes the versions of the rows it loads (free
 * rows' tombstones included), so each row's versions only grow as it moves between nodes, whatever the nodes'
 * clocks say; and a late write of an older version (a dead server's checkpoint landing after a recovery replayed
 * it, a record replayed twice) never hides a newer one. HBase keeps the version as the cell's timestamp, which is
 * why it is in milliseconds: the cells read as times in the shell, close to when they were written.
 */
public final class VersionClock {
  private long last;

  /** A version above all issued and observed ones, and at least {@code wallMillis}. */
  public synchronized long next(long wallMillis) {
    last = Math.max(last + 1, wallMillis);
    return last;
  }

  /**
   * Stamps one write's changes (one per row) with one new version: {@link #next} of {@code wallMillis}.
   */
  public List<LoggedChange> stamp(List<StateChange> changes, long wallMillis) {
    long version = next(wallMillis);
    return changes.stream().map(c -> new LoggedChange(c, version)).toList();
  }

  /** Versions issued from now on are above {@code version}. */
  public synchronized void observe(long version) {
    last = Math.max(last, version);
  }

  /** The highest version issued or observed so far. */
  public synchronized long last() {
    return last;
  }
}
