package org.gstore.common.wire;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Where G-Store keeps its durable protocol state in HBase: the servers write it, operator tools
 * ({@code GStoreAdmin}) read it. Values are protobuf ({@code GroupRecordProto}, {@code OwnerRecordProto},
 * {@code LeaseRecordProto}); see docs/operations.md, "Seeing groups with the HBase shell".
 */
public final class StateLayout {
  public static final String NAMESPACE = "gstore";
  /** One row per group, keyed by its leader row then its name: its record, and its lease. */
  public static final TableName GROUPS = TableName.valueOf(NAMESPACE, "groups");
  public static final TableName OWNERS = TableName.valueOf(NAMESPACE, "owners");
  public static final TableName NODES = TableName.valueOf(NAMESPACE, "nodes");
  public static final byte[] FAMILY = Bytes.toBytes("s");
  public static final byte[] RECORD = Bytes.toBytes("record");
  public static final byte[] LEASE = Bytes.toBytes("lease");

  private StateLayout() {}
}
