package org.gstore.coprocessor.txn;

import org.apache.hadoop.hbase.TableName;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;

/**
 * Turns the keys of a client request into the canonical {@link Key}s the engine and caches use: the table name as
 * HBase prints it ({@code default:players} and {@code players} are one table), and no empty row (HBase has none).
 * Malformed input becomes an {@link IllegalArgumentException}, which the endpoints answer as a
 * {@code DoNotRetryIOException}.
 */
public final class Requests {
  private Requests() {}

  public static Key key(KeyProto k) {
    TableName table = TableName.valueOf(k.getTable()); // throws IllegalArgumentException naming the problem
    if (k.getRow().isEmpty()) {
      throw new IllegalArgumentException("an empty row key names no row of " + table);
    }
    return Key.of(table.getNameAsString(), k.getRow().toByteArray());
  }

  public static GroupId groupId(String name, KeyProto leader) {
    if (name.isEmpty()) {
      throw new IllegalArgumentException("a group needs a name");
    }
    return new GroupId(name, key(leader));
  }
}
