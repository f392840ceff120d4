package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceExistException;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.OwnerRecord;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.wire.RecordCodec;

/**
 * The protocol's durable state in HBase tables, written with synchronous WAL: {@code gstore:groups} (groups led by
 * a key), {@code gstore:owners} (keys that are not free) and {@code gstore:nodes} (uid reservations). State is
 * stored per key, not per server, so it follows rows when regions move, split or reopen elsewhere; operators can
 * read it with the HBase shell.
 */
public final class StateTables implements StepWriter.Store {
  public static final String NAMESPACE = "gstore";
  static final TableName GROUPS = TableName.valueOf(NAMESPACE, "groups");
  public static final TableName OWNERS = TableName.valueOf(NAMESPACE, "owners");
  static final TableName NODES = TableName.valueOf(NAMESPACE, "nodes");
  public static final byte[] FAMILY = Bytes.toBytes("s");
  public static final byte[] RECORD = Bytes.toBytes("record");
  static final byte[] UIDS = Bytes.toBytes("uids");

  private final Connection connection;

  StateTables(Connection connection) {
    this.connection = connection;
  }

  /** Creates the namespace and tables if missing (idempotent; several servers may race). */
  void ensureExist() throws IOException {
    ensureExist(connection);
  }

  /**
   * Creates the namespace and tables on {@code connection}'s cluster if missing. Idempotent, and safe when the
   * master and several region servers race to do it.
   */
  public static void ensureExist(Connection connection) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      try {
        admin.createNamespace(NamespaceDescriptor.create(NAMESPACE).build());
      } catch (NamespaceExistException e) {
        // created by another server
      }
      for (TableName t : List.of(GROUPS, OWNERS, NODES)) {
        if (!admin.tableExists(t)) {
          try {
            admin.createTable(TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY).setMaxVersions(1).build())
                .setDurability(Durability.SYNC_WAL)
                .build());
          } catch (TableExistsException e) {
            // created by another server
          }
        }
      }
    }
  }

  long reservedUids(NodeId node) throws IOException {
    try (Table t = connection.getTable(NODES)) {
      Result r = t.get(new Get(Bytes.toBytes(node.value())).addColumn(FAMILY, UIDS));
      return r.isEmpty() ? 0 : Bytes.toLong(r.getValue(FAMILY, UIDS));
    }
  }

  /** The groups led by, and the owner records of, the keys of one region. */
  Loaded load(String table, byte[] startRow, byte[] endRow) throws IOException {
    Scan scan = new Scan().withStartRow(StateRows.rangeStart(table, startRow))
        .withStopRow(StateRows.rangeStop(table, endRow)).addColumn(FAMILY, RECORD);
    List<GroupRecord> groups = new ArrayList<>();
    List<OwnerRecord> owners = new ArrayList<>();
    try (Table t = connection.getTable(GROUPS); ResultScanner rs = t.getScanner(scan)) {
      for (Result r : rs) {
        groups.add(RecordCodec.decodeGroup(r.getValue(FAMILY, RECORD)));
      }
    }
    try (Table t = connection.getTable(OWNERS); ResultScanner rs = t.getScanner(scan)) {
      for (Result r : rs) {
        owners.add(RecordCodec.decodeOwner(r.getValue(FAMILY, RECORD)));
      }
    }
    return new Loaded(groups, owners);
  }

  record Loaded(List<GroupRecord> groups, List<OwnerRecord> owners) {}

  /**
   * Makes {@code changes} durable before returning. Uid reservations go first, on their own, because the other
   * changes may use ids from the new block; the rest, already collapsed to one change per row, go in one batch
   * per table.
   */
  @Override
  public void write(List<StateChange> changes) throws IOException {
    Map<TableName, List<Mutation>> byTable = new HashMap<>();
    for (StateChange c : changes) {
      byTable.computeIfAbsent(tableOf(c), t -> new ArrayList<>()).add(sync(mutation(c)));
    }
    for (TableName t : List.of(NODES, GROUPS, OWNERS)) {
      batch(t, byTable.getOrDefault(t, List.of()));
    }
  }

  /** The table a change is written to. */
  static TableName tableOf(StateChange change) {
    if (change instanceof StateChange.PutGroup || change instanceof StateChange.RemoveGroup) {
      return GROUPS;
    }
    if (change instanceof StateChange.PutOwner || change instanceof StateChange.RemoveOwner) {
      return OWNERS;
    }
    return NODES;
  }

  /** The row write that makes {@code change} durable in {@link #tableOf}'s table. */
  private static Mutation mutation(StateChange change) {
    if (change instanceof StateChange.PutGroup p) {
      return new Put(StateRows.group(p.record().id())).addColumn(FAMILY, RECORD, RecordCodec.encode(p.record()));
    } else if (change instanceof StateChange.RemoveGroup r) {
      return new Delete(StateRows.group(r.group().id()));
    } else if (change instanceof StateChange.PutOwner p) {
      return new Put(StateRows.owner(p.record().key())).addColumn(FAMILY, RECORD, RecordCodec.encode(p.record()));
    } else if (change instanceof StateChange.RemoveOwner r) {
      return new Delete(StateRows.owner(r.key()));
    }
    StateChange.ReserveUids u = (StateChange.ReserveUids) change;
    return new Put(Bytes.toBytes(u.node().value())).addColumn(FAMILY, UIDS, Bytes.toBytes(u.upTo()));
  }

  private void batch(TableName name, List<Mutation> mutations) throws IOException {
    if (mutations.isEmpty()) {
      return;
    }
    try (Table t = connection.getTable(name)) {
      Object[] results = new Object[mutations.size()];
      t.batch(mutations, results);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted writing " + name);
    }
  }

  private static <M extends Mutation> M sync(M m) {
    m.setDurability(Durability.SYNC_WAL);
    return m;
  }
}
