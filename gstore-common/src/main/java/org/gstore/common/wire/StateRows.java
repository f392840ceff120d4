package org.gstore.common.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.Key;

/**
 * Row keys of the state tables. A key is encoded order-preserving: table name, 0x00, the row with 0x00 escaped as
 * 0x00 0xFF, then 0x00 0x01. So the state of every key in a region's range [start, end) lies in one scan range,
 * which is how a region that opens finds the state of its rows, wherever it was written.
 */
public final class StateRows {
  private StateRows() {}

  /** Row of {@code gstore:owners} for a key. */
  public static byte[] owner(Key key) {
    ByteArrayOutputStream out = prefix(key.table(), key.row());
    out.write(0);
    out.write(1);
    return out.toByteArray();
  }

  /** Row of {@code gstore:groups} for a group: its leader key's row, then the group name. */
  public static byte[] group(GroupId id) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(owner(id.leader()));
    out.writeBytes(id.name().getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  /** First state row of a region whose table is {@code table} and whose start row is {@code start}. */
  public static byte[] rangeStart(String table, byte[] start) {
    return prefix(table, start).toByteArray();
  }

  /** The state row just past a region ending at {@code end} (empty: the table's last region). */
  public static byte[] rangeStop(String table, byte[] end) {
    if (end.length == 0) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.writeBytes(table.getBytes(StandardCharsets.UTF_8));
      out.write(1);
      return out.toByteArray();
    }
    return prefix(table, end).toByteArray();
  }

  private static ByteArrayOutputStream prefix(String table, byte[] row) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(table.length() + row.length + 4);
    out.writeBytes(table.getBytes(StandardCharsets.UTF_8));
    out.write(0);
    for (byte b : row) {
      out.write(b);
      if (b == 0) {
        out.write(0xff);
      }
    }
    return out;
  }
}
