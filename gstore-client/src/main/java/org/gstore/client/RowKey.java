package org.gstore.client;

import java.util.Arrays;
import java.util.Objects;
import org.apache.hadoop.hbase.TableName;
import org.gstore.common.protocol.Key;

/** A row of a table, as a group member. Equality by table and row bytes. */
public final class RowKey {
  private final TableName table;
  private final byte[] row;

  private RowKey(TableName table, byte[] row) {
    this.table = Objects.requireNonNull(table, "table");
    this.row = Objects.requireNonNull(row, "row").clone();
  }

  public static RowKey of(TableName table, byte[] row) {
    return new RowKey(table, row);
  }

  public TableName table() {
    return table;
  }

  /** A copy of the row bytes. */
  public byte[] row() {
    return row.clone();
  }

  Key toKey() {
    return Key.of(table.getNameAsString(), row);
  }

  static RowKey of(Key key) {
    return new RowKey(TableName.valueOf(key.table()), key.row());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowKey r && table.equals(r.table) && Arrays.equals(row, r.row);
  }

  @Override
  public int hashCode() {
    return 31 * table.hashCode() + Arrays.hashCode(row);
  }

  /** {@code table/row}, the row printable with other bytes (and {@code @}, {@code \}) as {@code \xNN}. */
  @Override
  public String toString() {
    return table.getNameAsString() + "/" + Printable.escape(row);
  }
}
