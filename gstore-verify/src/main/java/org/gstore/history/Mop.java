package org.gstore.history;

/**
 * One micro-operation of a transaction: a read of a key's list, or an append of one integer to it.
 *
 * @param read the list read, oldest element first; null when not known (an invocation, or an outcome unknown). Not
 *     copied, for histories of millions of reads: nothing may change it
 * @param appended the integer appended (unique for its key), when an append
 */
public record Mop(boolean isRead, String key, long[] read, long appended) {
  /** A read of {@code value} (not copied: it must not change afterwards), or of an unknown value (null). */
  public static Mop read(String key, long[] value) {
    return new Mop(true, key, value, 0);
  }

  public static Mop append(String key, long value) {
    return new Mop(false, key, null, value);
  }

  @Override
  public String toString() {
    return isRead ? "[\"r\",\"" + key + "\"," + (read == null ? "null" : java.util.Arrays.toString(read)) + "]"
        : "[\"append\",\"" + key + "\"," + appended + "]";
  }
}
