package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
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
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.recovery.hbase.OutcomeTable;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.wire.generated.KeyGroupingProtos.GroupRefProto;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.protocol.GroupRef;
import java.util.HashMap;
import java.util.Collection;
import java.util.Arrays;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.OwnerRecord;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.WriteOrder;
import org.gstore.common.wire.RecordCodec;

/**
 * The protocol's durable state in HBase tables, written with synchronous WAL: {@code gstore:groups} (groups led by
 * a key), {@code gstore:owners} (keys that are not free) and {@code gstore:nodes} (uid reservations). State is
 * stored per key, not per server, so it follows rows when regions move, split or reopen elsewhere; operators can
 * read it with the HBase shell.
 */
public final class StateTables implements StepWriter.Store, GroupLeases.Store {
  public static final String NAMESPACE = "gstore";
  static final TableName GROUPS = TableName.valueOf(NAMESPACE, "groups");
  public static final TableName OWNERS = TableName.valueOf(NAMESPACE, "owners");
  static final TableName NODES = TableName.valueOf(NAMESPACE, "nodes");
  public static final byte[] FAMILY = Bytes.toBytes("s");
  public static final byte[] RECORD = Bytes.toBytes("record");
  static final byte[] UIDS = Bytes.toBytes("uids");
  /** A group's lease expiry, next to its record: 8 bytes of time, then the group's incarnation. */
  static final byte[] LEASE = Bytes.toBytes("lease");

  private final Connection connection;
  /** Writes a phase's other tables while the writer thread writes one; idle threads end after a minute. */
  private final ExecutorService parallel = new ThreadPoolExecutor(0, 2, 60, TimeUnit.SECONDS,
      new SynchronousQueue<>(), runnable -> {
        Thread t = new Thread(runnable, "gstore-state-write");
        t.setDaemon(true);
        return t;
      });

  StateTables(Connection connection) {
    this.connection = connection;
  }

  /** Stops the threads of {@link #write}; the connection is the caller's. */
  void close() {
    parallel.shutdownNow();
  }

  /** Creates the namespace and tables if missing (idempotent; several servers may race). */
  void ensureExist() throws IOException {
    ensureExist(connection);
  }

  /**
   * Creates the namespace and tables on {@code connection}'s cluster if missing, {@code gstore:outcomes} among them
   * (with {@code gstore.txn.outcome.retain.ms} from the connection's configuration). Idempotent, and safe when the
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
      OutcomeTable.ensureExists(admin, connection.getConfiguration().getLong(GStoreConfig.TXN_OUTCOME_RETAIN_MS,
          OutcomeTable.DEFAULT_RETAIN_MILLIS));
    }
  }

  @Override
  public Map<GroupRef, Long> expiries(Collection<GroupRef> groups) throws IOException {
    List<GroupRef> ordered = List.copyOf(groups);
    List<Get> gets = new ArrayList<>(ordered.size());
    ordered.forEach(g -> gets.add(new Get(StateRows.group(g.id())).addColumn(FAMILY, LEASE)));
    Map<GroupRef, Long> expiries = new HashMap<>();
    try (Table t = connection.getTable(GROUPS)) {
      Result[] results = t.get(gets);
      for (int i = 0; i < results.length; i++) {
        byte[] value = results[i].getValue(FAMILY, LEASE);
        if (value != null && value.length > Bytes.SIZEOF_LONG && ordered.get(i).equals(DatagramCodec.fromProto(
            GroupRefProto.parseFrom(Arrays.copyOfRange(value, Bytes.SIZEOF_LONG, value.length))))) {
          expiries.put(ordered.get(i), Bytes.toLong(value));
        }
      }
    }
    return expiries;
  }

  @Override
  public void writeExpiries(Map<GroupRef, Long> expiries) throws IOException {
    List<Mutation> puts = new ArrayList<>(expiries.size());
    expiries.forEach((group, expiresAt) -> puts.add(sync(new Put(StateRows.group(group.id())).addColumn(FAMILY,
        LEASE, Bytes.add(Bytes.toBytes(expiresAt), DatagramCodec.toProto(group).toByteArray())))));
    batch(GROUPS, puts);
  }

  long reservedUids(NodeId node) throws IOException {
    try (Table t = connection.getTable(NODES)) {
      Result r = t.get(new Get(Bytes.toBytes(node.value())).addColumn(FAMILY, UIDS));
      return r.isEmpty() ? 0 : Bytes.toLong(r.getValue(FAMILY, UIDS));
    }
  }

  /**
   * The groups led by, and the owner records of, the keys of one region. Scanners are read with {@code next()},
   * not iterated: their iterator turns an I/O error into an unchecked one, which the region's loader would not
   * retry.
   */
  Loaded load(String table, byte[] startRow, byte[] endRow) throws IOException {
    Scan scan = new Scan().withStartRow(StateRows.rangeStart(table, startRow))
        .withStopRow(StateRows.rangeStop(table, endRow)).addColumn(FAMILY, RECORD);
    List<GroupRecord> groups = new ArrayList<>();
    List<OwnerRecord> owners = new ArrayList<>();
    try (Table t = connection.getTable(GROUPS); ResultScanner rs = t.getScanner(scan)) {
      for (Result r = rs.next(); r != null; r = rs.next()) {
        groups.add(RecordCodec.decodeGroup(r.getValue(FAMILY, RECORD)));
      }
    }
    try (Table t = connection.getTable(OWNERS); ResultScanner rs = t.getScanner(scan)) {
      for (Result r = rs.next(); r != null; r = rs.next()) {
        owners.add(RecordCodec.decodeOwner(r.getValue(FAMILY, RECORD)));
      }
    }
    return new Loaded(groups, owners);
  }

  record Loaded(List<GroupRecord> groups, List<OwnerRecord> owners) {}

  /**
   * Makes {@code changes} (one per target) durable before returning, phase by phase as {@link WriteOrder} says;
   * within a phase, one batch per table, the tables' batches at the same time: a create's {@code CREATING} record
   * and its leader's own {@code JOINING} records cost one round of writes, not two.
   */
  @Override
  public void write(List<StateChange> changes) throws IOException {
    for (List<StateChange> phase : WriteOrder.phases(changes)) {
      Map<TableName, List<Mutation>> byTable = new LinkedHashMap<>();
      for (StateChange c : phase) {
        byTable.computeIfAbsent(tableOf(c), t -> new ArrayList<>()).add(sync(mutation(c)));
      }
      writeAtOnce(byTable);
    }
  }

  /** One batch per table, all but the last on {@link #parallel}, the last on this thread; waits for all. */
  private void writeAtOnce(Map<TableName, List<Mutation>> byTable) throws IOException {
    List<Future<?>> others = new ArrayList<>();
    List<Map.Entry<TableName, List<Mutation>>> batches = List.copyOf(byTable.entrySet());
    for (Map.Entry<TableName, List<Mutation>> b : batches.subList(0, Math.max(0, batches.size() - 1))) {
      others.add(parallel.submit(() -> {
        batch(b.getKey(), b.getValue());
        return null;
      }));
    }
    IOException failure = null;
    try {
      if (!batches.isEmpty()) {
        Map.Entry<TableName, List<Mutation>> last = batches.get(batches.size() - 1);
        batch(last.getKey(), last.getValue());
      }
    } catch (IOException e) {
      failure = e;
    }
    for (Future<?> f : others) {
      try {
        f.get(); // waited for even after a failure: no write of this phase may still run when this returns
      } catch (ExecutionException e) {
        if (failure == null) {
          failure = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted writing protocol state");
      }
    }
    if (failure != null) {
      throw failure;
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
