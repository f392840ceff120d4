package org.gstore.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.OwnerRecord;
import org.gstore.common.wire.RecordCodec;

/** Reads G-Store's durable protocol state the way an operator would, with plain scans of its tables. */
final class StateTablesView {
  static final TableName OWNERS = TableName.valueOf("gstore:owners");
  static final TableName GROUPS = TableName.valueOf("gstore:groups");
  private static final byte[] FAMILY = Bytes.toBytes("s");
  private static final byte[] RECORD = Bytes.toBytes("record");

  private StateTablesView() {}

  static List<OwnerRecord> owners(GStoreMiniCluster cluster) {
    List<OwnerRecord> owners = new ArrayList<>();
    for (byte[] value : scan(cluster, OWNERS)) {
      try {
        owners.add(RecordCodec.decodeOwner(value));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return owners;
  }

  static List<GroupRecord> groups(GStoreMiniCluster cluster) {
    List<GroupRecord> groups = new ArrayList<>();
    for (byte[] value : scan(cluster, GROUPS)) {
      try {
        groups.add(RecordCodec.decodeGroup(value));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return groups;
  }

  /** Owner records of rows in the group named {@code name} (any group if null). */
  static List<OwnerRecord> ownersOf(GStoreMiniCluster cluster, String name) {
    return owners(cluster).stream().filter(o -> name == null || o.group().id().name().equals(name)).toList();
  }

  static boolean isGrouped(GStoreMiniCluster cluster, TableName table, byte[] row) {
    Key key = Key.of(table.getNameAsString(), row);
    return owners(cluster).stream().anyMatch(o -> o.key().equals(key));
  }

  private static List<byte[]> scan(GStoreMiniCluster cluster, TableName name) {
    List<byte[]> values = new ArrayList<>();
    try (Table t = cluster.getConnection().getTable(name); ResultScanner rs = t.getScanner(new Scan())) {
      for (Result r : rs) {
        byte[] record = r.getValue(FAMILY, RECORD);
        if (record != null) { // a row with only a lease: its group's record is not in the table (yet, or any more)
          values.add(record);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return values;
  }
}
