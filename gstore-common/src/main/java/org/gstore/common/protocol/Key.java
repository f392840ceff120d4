package org.gstore.common.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A row of a table: the unit the Key Grouping protocol moves ownership of. Messages are addressed to keys, never
 * to servers, so the protocol is oblivious to where a key currently lives (G-Store paper, section 4.2).
 *
 * <p>Immutable; equality and ordering by table name, then row bytes (unsigned, like HBase).
 */
public final class Key implements Comparable<Key> {
  private final String table;
  private final byte[] row;
  private final int hash;

  private Key(String table, byte[] row) {
    if (table == null || table.isEmpty()) {
      throw new IllegalArgumentException("table name must not be empty");
    }
    this.table = table;
    this.row = Objects.requireNonNull(row, "row").clone();
    this.hash = 31 * table.hashCode() + Arrays.hashCode(row);
  }

  /** A key of {@code table} (its fully qualified name, {@code namespace:table} or {@code table}). */
  public static Key of(String table, byte[] row) {
    return new Key(table, row);
  }

  /** Convenience for tests and tools: the row is the UTF-8 bytes of {@code row}. */
  public static Key of(String table, String row) {
    return new Key(table, row.getBytes(StandardCharsets.UTF_8));
  }

  public String table() {
    return table;
  }

  /** A copy of the row bytes. */
  public byte[] row() {
    return row.clone();
  }

  @Override
  public int compareTo(Key o) {
    int c = table.compareTo(o.table);
    return c != 0 ? c : Arrays.compareUnsigned(row, o.row);
  }

  @Override
  public boolean equals(Object o) {
    return this == o
        || (o instanceof Key k && hash == k.hash && table.equals(k.table) && Arrays.equals(row, k.row));
  }

  @Override
  public int hashCode() {
    return hash;
  }

  /** {@code table/row}, with non-printable row bytes escaped as {@code \xNN} (like HBase's toStringBinary). */
  @Override
  public String toString() {
    return table + "/" + printable(row);
  }

  static String printable(byte[] bytes) {
    StringBuilder sb = new StringBuilder(bytes.length);
    for (byte b : bytes) {
      int c = b & 0xff;
      if (c >= ' ' && c <= '~' && c != '\\') {
        sb.append((char) c);
      } else {
        sb.append(String.format("\\x%02X", c));
      }
    }
    return sb.toString();
  }
}
