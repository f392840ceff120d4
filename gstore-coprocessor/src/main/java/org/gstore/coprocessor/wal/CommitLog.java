package org.gstore.coprocessor.wal;

import java.util.concurrent.CompletableFuture;
import org.gstore.common.protocol.GroupRef;
import org.gstore.recovery.WalPosition;

/** Where commits are made durable before they are acknowledged: the {@link SharedWal} in production. */
public interface CommitLog {
  /**
   * Appends a record; the future completes with its position once it is durable, or fails if it never will be
   * (the log was closed or fenced). It may take arbitrarily long: a caller that stops waiting does not know the
   * outcome.
   */
  CompletableFuture<WalPosition> append(GroupRef group, byte[] record);
}
