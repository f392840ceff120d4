package org.gstore.coprocessor.wal;

/**
 * This server's G-Store WAL was fenced by a recovery: HBase declared the server dead, and another server renamed
 * the WAL's directory before loading the groups led from here. Nothing this server decides may leave it any more
 * (it is a zombie); the region server must stop. Never retried.
 */
public final class WalFencedException extends WalStoppedException {
  private static final long serialVersionUID = 1L;

  public WalFencedException(String message) {
    super(message, null);
  }

  public WalFencedException(String message, Throwable cause) {
    super(message, cause);
  }
}
