package org.gstore.coprocessor.txn;

import com.google.protobuf.ByteString;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.gstore.common.wire.Columns;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;

/**
 * A row as one committed transaction left it: its columns ({@code family:qualifier} to value) and the commit
 * timestamp that produced it (its version; 0 for the state loaded from HBase when the group formed). Immutable.
 */
public record RowState(long version, Map<ByteString, ByteString> columns) {
  static final RowState EMPTY = new RowState(0, Map.of());

  /** The state after {@code write}, committed at {@code version}. */
  RowState apply(RowWriteProto write, long version) {
    TreeMap<ByteString, ByteString> next = new TreeMap<>(Columns::compare);
    if (!write.getDeleteRow()) {
      next.putAll(columns);
    }
    for (ColumnProto c : write.getColumnsList()) {
      ByteString key = Columns.key(c.getFamily(), c.getQualifier());
      if (c.hasValue()) {
        next.put(key, c.getValue());
      } else {
        next.remove(key);
      }
    }
    return new RowState(version, Collections.unmodifiableMap(next));
  }
}
