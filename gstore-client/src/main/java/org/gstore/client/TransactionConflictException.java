package org.gstore.client;

import java.io.IOException;

/**
 * The transaction could not commit because a row it read was changed by another transaction since (or its
 * snapshot is too old). Nothing of it was applied; run it again. {@link KeyGroup#transact} does so by itself.
 */
public class TransactionConflictException extends IOException {
  private static final long serialVersionUID = 1L;

  public TransactionConflictException(String message) {
    super(message);
  }
}
