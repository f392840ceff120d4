package org.gstore.chaos;

import java.nio.ByteBuffer;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

/** How a key of the list-append workload is stored: its list of longs, whole, in one cell of its row. */
final class ListRow {
  static final byte[] CF = Bytes.toBytes("l");
  static final byte[] LIST = Bytes.toBytes("v");

  private ListRow() {}

  /** The list a row holds; empty for a row without one. */
  static long[] decode(Result r) {
    byte[] v = r == null ? null : r.getValue(CF, LIST);
    if (v == null) {
      return new long[0];
    }
    ByteBuffer b = ByteBuffer.wrap(v);
    long[] list = new long[v.length / Long.BYTES];
    for (int i = 0; i < list.length; i++) {
      list[i] = b.getLong();
    }
    return list;
  }

  static byte[] encode(long[] list) {
    ByteBuffer b = ByteBuffer.allocate(list.length * Long.BYTES);
    for (long v : list) {
      b.putLong(v);
    }
    return b.array();
  }

  /** The write that makes {@code row} hold {@code list}. */
  static Put put(byte[] row, long[] list) {
    return new Put(row).addColumn(CF, LIST, encode(list));
  }
}
