package org.gstore.common;

import org.apache.hadoop.hbase.DoNotRetryIOException;

/**
 * A plain HBase write touched a row that belongs to a G-Store group (joining or yielded to it). Only the group's
 * leader may change the row until the group is deleted; retrying does not help, so this is a
 * {@link DoNotRetryIOException}. The message names the row and the group.
 *
 * <p>Lives in {@code gstore-common} so that clients, which only see the exception's class name and message, can
 * decode it.
 */
public class RowGroupedException extends DoNotRetryIOException {
  private static final long serialVersionUID = 1L;

  /** For HBase's remote exception decoding, which calls the (String) constructor. */
  public RowGroupedException(String message) {
    super(message);
  }

  /**
   * Whether {@code e} is this refusal, in either form a client gets it: the exception itself (a single write, an atomic
   * write, or a batch HBase cannot fail write by write), or, for one write of a plain batch, the
   * {@link DoNotRetryIOException} HBase makes of it, whose message keeps only "class name: message" (and which the
   * client prefixes with the name of the remote exception's class).
   */
  public static boolean is(Throwable e) {
    return e instanceof RowGroupedException || e instanceof DoNotRetryIOException && e.getMessage() != null
        && e.getMessage().contains(RowGroupedException.class.getName() + ": ");
  }

  /** @param row the row written, printable; @param group the group that owns it, printable */
  public static RowGroupedException of(String row, String group) {
    return new RowGroupedException("row " + row + " belongs to G-Store group " + group
        + ": write it through the group's transactions, or delete the group first");
  }
}
