package org.gstore.coprocessor.wal;

import java.io.IOException;

/**
 * This server's G-Store WAL was fenced by a recovery: HBase declared the server dead, and another server renamed
 * the WAL's directory before loading the groups led from here. Nothing this server decides may leave it any more
 * (it is a zombie); the region server must stop. Never retried.
 */
public final class WalFencedException extends IOException {
  private static final long serialVersionUID = 1L;

  public WalFencedException(String message) {
    super(message);
  }

  public WalFencedException(String message, Throwable cause) {
    super(message, cause);
  }
}
