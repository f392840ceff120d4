package org.gstore.coprocessor.wal;

import java.io.IOException;

/**
 * This server's G-Store WAL takes no commit any more, for good: the server must stop as if it had crashed, and its
 * groups are recovered from the log by another server. Never retried.
 */
public class WalStoppedException extends IOException {
  private static final long serialVersionUID = 1L;

  public WalStoppedException(String message, Throwable cause) {
    super(message, cause);
  }
}
