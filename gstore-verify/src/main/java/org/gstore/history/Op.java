package org.gstore.history;

import java.util.List;

/**
 * One line of a history: an operation invoked, or how it completed.
 *
 * @param index its position in the history (from its {@code index} field)
 * @param time a monotonic nanosecond clock of the client that ran it
 * @param process the client process; it runs one operation at a time
 * @param f what the operation is: {@code txn}, {@code read} (plain reads of rows outside any group), or
 *     {@code create} and {@code delete} of groups (recorded for a reader; the checker passes over them)
 * @param value a transaction's micro-operations (empty for what is not a transaction)
 * @param group the G-Store group a transaction ran in, or a create or delete made or ended (its {@code group}
 *     field); null for plain operations and histories that do not say. A plain read that began after a group's
 *     delete returned must see every append the group's transactions made: its rows are released then
 */
public record Op(long index, long time, long process, Type type, String f, List<Mop> value, String group) {
  /** An operation of no group. */
  public Op(long index, long time, long process, Type type, String f, List<Mop> value) {
    this(index, time, process, type, f, value, null);
  }

  /** Jepsen's operation types. */
  public enum Type {
    /** Invoked. */
    INVOKE,
    /** Completed: it happened. */
    OK,
    /** Completed: it is known not to have happened. */
    FAIL,
    /** Completed without an answer: it may or may not have happened, now or later. */
    INFO;

    public String json() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Whether this operation reads and appends lists (a transaction or a plain read), as the checker checks. */
  public boolean isTransactional() {
    return f.equals("txn") || f.equals("read");
  }
}
