package org.gstore.common.protocol.log;

import org.gstore.common.protocol.StateChange;

/**
 * A state change with the version its row gets ({@link VersionClock}). A row takes a logged change only if its
 * version is above the row's: a release leaves a tombstone with its version rather than no row, so that an older
 * change arriving late cannot bring the row back.
 */
public record LoggedChange(StateChange change, long version) {
  public LoggedChange {
    if (change == null || version <= 0) {
      throw new IllegalArgumentException("a logged change needs a change and a positive version: " + version);
    }
  }

  /** The row the change writes. */
  public Object target() {
    return change.target();
  }

  /** Whether this change replaces a row written at {@code rowVersion} (0: a row never written). */
  public boolean supersedes(long rowVersion) {
    return version > rowVersion;
  }
}
