package org.gstore.common;

import org.apache.hadoop.hbase.DoNotRetryIOException;

/**
 * A group's leader refused a commit as it is (a transaction id or write HBase cannot take, a commit above the size
 * limit, a table that does not run G-Store): it did not take effect, and never will. The leader says so only after
 * checking that no earlier attempt of the same transaction took effect, so a client retrying a commit may trust
 * it. Other {@link DoNotRetryIOException}s a commit call meets (HBase's own) say nothing of that.
 *
 * <p>Lives in {@code gstore-common} so that clients, which only see the exception's class name and message, can
 * decode it.
 */
public class CommitRefusedException extends DoNotRetryIOException {
  private static final long serialVersionUID = 1L;

  /** For HBase's remote exception decoding, which calls the (String) constructor. */
  public CommitRefusedException(String message) {
    super(message);
  }
}
