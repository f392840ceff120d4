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
import org.gstore.common.wire.generated.GStoreProtos.LeaseRecordProto;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.protocol.GroupRef;
import java.util.HashMap;
import java.util.Collection;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.OwnerRecord;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.WriteOrder;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.common.protocol.log.VersionClock;
import org.gstore.common.wire.RecordCodec;
import org.gstore.common.wire.StateLayout;
import org.gstore.common.wire.StateMutations;
import org.gstore.common.wire.StateRows;

/**
 * The protocol's durable state in HBase tables, written with synchronous WAL: {@code gstore:groups} (groups led by
 * a key), {@code gstore:owners} (keys that are not free) and {@code gstore:nodes} (uid reservations). State is
 * stored per key, not per server, so it follows rows when regions move, split or reopen elsewhere; operators can
 * read it with the HBase shell.
 *
 * <p>Every record cell carries its write's version as its timestamp ({@link VersionClock}), and a release is a
 * delete marker at its version: a write that lands late (a dead server's batch, retried by its HBase client after
 * the row's next host wrote newer state) hides behind the newer cell or marker instead of replacing it. Major
 * compactions keep the markers {@link GStoreConfig#DELETES_RETAIN_MS} (HBase's time to purge deletes, set on the
 * tables' family), far longer than any write stays in flight. A load observes the versions of what it reads,
 * markers included, so this server's next writes to those rows are above them whatever its clock says.
 */
public final class StateTables implements StepWriter.Store, GroupLeases.Store {
  public static final String NAMESPACE = StateLayout.NAMESPACE;
  static final TableName GROUPS = StateLayout.GROUPS;
  public static final TableName OWNERS = StateLayout.OWNERS;
  static final TableName NODES = StateLayout.NODES;
  public static final byte[] FAMILY = StateLayout.FAMILY;
  public static final byte[] RECORD = StateLayout.RECORD;
  static final byte[] UIDS = StateMutations.UIDS;
  /** A group's lease, next to its record ({@code LeaseRecordProto}). */
  static final byte[] LEASE = StateLayout.LEASE;
  /** HBase's store setting: how long major compactions keep delete markers. */
  static final String PURGE_DELETES = "hbase.hstore.time.to.purge.deletes";

  private final Connection connection;
  private final VersionClock clock;
  /**
   * Writes a phase's other tables while the calling thread writes one; idle threads end after a minute. Several
   * threads write (the state writer, the checkpointer, recoveries): a batch no pool thread takes runs on its caller.
   */
  private final ExecutorService parallel = new ThreadPoolExecutor(0, 2, 60, TimeUnit.SECONDS,
      new SynchronousQueue<>(), runnable -> {
        Thread t = new Thread(runnable, "gstore-state-write");
        t.setDaemon(true);
        return t;
      }, new ThreadPoolExecutor.CallerRunsPolicy());

  /** @param clock stamps this server's writes and observes the versions its loads read */
  StateTables(Connection connection, VersionClock clock) {
    this.connection = connection;
    this.clock = clock;
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
      String purgeDeletes = Long.toString(GStoreConfig.deletesRetainMillis(connection.getConfiguration()));
      for (TableName t : List.of(GROUPS, OWNERS, NODES)) {
        if (!admin.tableExists(t)) {
          try {
            admin.createTable(TableDescriptorBuilder.newBuilder(t)
                .setColumnFamily(family(purgeDeletes))
                .setDurability(Durability.SYNC_WAL)
                .build());
          } catch (TableExistsException e) {
            // created by another server
          }
        } else if (!purgeDeletes.equals(admin.getDescriptor(t).getColumnFamily(FAMILY)
            .getConfigurationValue(PURGE_DELETES))) {
          admin.modifyColumnFamily(t, family(purgeDeletes)); // tables of a release before versioned cells
        }
      }
      OutcomeTable.ensureExists(admin, GStoreConfig.outcomeRetainMillis(connection.getConfiguration()));
    }
  }

  /** The state tables' one family: a version per cell, delete markers kept {@code purgeDeletes} ms. */
  private static org.apache.hadoop.hbase.client.ColumnFamilyDescriptor family(String purgeDeletes) {
    return ColumnFamilyDescriptorBuilder.newBuilder(FAMILY).setMaxVersions(1)
        .setConfiguration(PURGE_DELETES, purgeDeletes).build();
  }

  @Override
  public Map<GroupRef, GroupLeases.Lease> leases(Collection<GroupRef> groups) throws IOException {
    List<GroupRef> ordered = List.copyOf(groups);
    List<Get> gets = new ArrayList<>(ordered.size());
    ordered.forEach(g -> gets.add(new Get(StateRows.group(g.id())).addColumn(FAMILY, LEASE)));
    Map<GroupRef, GroupLeases.Lease> leases = new HashMap<>();
    try (Table t = connection.getTable(GROUPS)) {
      Result[] results = t.get(gets);
      for (int i = 0; i < results.length; i++) {
        byte[] value = results[i].getValue(FAMILY, LEASE);
        GroupLeases.Lease lease = value == null ? null : decodeLease(value);
        if (lease != null && lease.group().equals(ordered.get(i))) {
          leases.put(ordered.get(i), lease);
        }
      }
    }
    return leases;
  }

  @Override
  public void write(Collection<GroupLeases.Lease> leases) throws IOException {
    List<Mutation> puts = new ArrayList<>(leases.size());
    // versioned like the records: a group's removal (a delete at its version) never hides a later incarnation's lease
    long version = clock.next(System.currentTimeMillis());
    leases.forEach(lease -> puts.add(sync(new Put(StateRows.group(lease.group().id())).addColumn(FAMILY, LEASE,
        version, encodeLease(lease)))));
    batch(GROUPS, puts, 0);
  }

  /** A lease as its cell holds it. */
  public static byte[] encodeLease(GroupLeases.Lease lease) {
    LeaseRecordProto.Builder b = LeaseRecordProto.newBuilder().setGroup(DatagramCodec.toProto(lease.group()))
        .setExpiresAt(lease.expiresAt());
    if (lease.holder() != null) {
      b.setHolder(lease.holder());
    }
    return b.build().toByteArray();
  }

  /** The lease in a cell, or null if it does not read as one (written by something else: ignored). */
  public static GroupLeases.Lease decodeLease(byte[] value) {
    try {
      LeaseRecordProto p = LeaseRecordProto.parseFrom(value);
      return new GroupLeases.Lease(DatagramCodec.fromProto(p.getGroup()), p.getExpiresAt(),
          p.hasHolder() ? p.getHolder() : null);
    } catch (com.google.protobuf.InvalidProtocolBufferException | RuntimeException e) {
      return null;
    }
  }

  long reservedUids(NodeId node) throws IOException {
    try (Table t = connection.getTable(NODES)) {
      Result r = t.get(new Get(Bytes.toBytes(node.value())).addColumn(FAMILY, UIDS));
      if (r.isEmpty()) {
        return 0;
      }
      clock.observe(r.getColumnLatestCell(FAMILY, UIDS).getTimestamp());
      return Bytes.toLong(r.getValue(FAMILY, UIDS));
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
    observeVersions(GROUPS, scan);
    observeVersions(OWNERS, scan);
    return new Loaded(groups, owners);
  }

  /**
   * Observes the newest version of every cell and delete marker in {@code range} (a raw scan: released rows are
   * markers, which a plain scan does not return), so this server writes those rows above them.
   */
  private void observeVersions(TableName table, Scan range) throws IOException {
    Scan raw = new Scan().withStartRow(range.getStartRow()).withStopRow(range.getStopRow()).addFamily(FAMILY)
        .setRaw(true).readAllVersions();
    long newest = 0;
    try (Table t = connection.getTable(table); ResultScanner rs = t.getScanner(raw)) {
      for (Result r = rs.next(); r != null; r = rs.next()) {
        for (org.apache.hadoop.hbase.Cell c : r.rawCells()) {
          newest = Math.max(newest, c.getTimestamp());
        }
      }
    }
    clock.observe(newest);
  }

  record Loaded(List<GroupRecord> groups, List<OwnerRecord> owners) {}

  /**
   * Makes {@code changes} (one per target) durable before returning, phase by phase as {@link WriteOrder} says;
   * within a phase, one batch per table, the tables' batches at the same time: a create's {@code CREATING} record
   * and its leader's own {@code JOINING} records cost one round of writes, not two.
   */
  @Override
  public void write(List<StateChange> changes) throws IOException {
    writeVersioned(clock.stamp(changes, System.currentTimeMillis()));
  }

  /** {@link #write}s changes already stamped with their versions (a checkpoint or a replay of logged ones). */
  public void writeVersioned(List<LoggedChange> changes) throws IOException {
    writeVersioned(changes, 0);
  }

  /**
   * {@link #writeVersioned(List)}, each batch bounded by {@code operationTimeoutMillis}, HBase's client retries
   * included (0: the connection's own bound): a replay holding a dead log's lock must not wait out a state table in
   * transition for HBase's whole operation timeout.
   */
  public void writeVersioned(List<LoggedChange> changes, int operationTimeoutMillis) throws IOException {
    Map<StateChange, LoggedChange> stamped = new java.util.IdentityHashMap<>();
    changes.forEach(c -> stamped.put(c.change(), c));
    for (List<StateChange> phase : WriteOrder.phases(changes.stream().map(LoggedChange::change).toList())) {
      Map<TableName, List<Mutation>> byTable = new LinkedHashMap<>();
      for (StateChange c : phase) {
        byTable.computeIfAbsent(tableOf(c), t -> new ArrayList<>()).add(StateMutations.of(stamped.get(c)));
      }
      writeAtOnce(byTable, operationTimeoutMillis);
    }
  }

  /** One batch per table, all but the last on {@link #parallel}, the last on this thread; waits for all. */
  private void writeAtOnce(Map<TableName, List<Mutation>> byTable, int operationTimeoutMillis) throws IOException {
    List<Future<?>> others = new ArrayList<>();
    List<Map.Entry<TableName, List<Mutation>>> batches = List.copyOf(byTable.entrySet());
    for (Map.Entry<TableName, List<Mutation>> b : batches.subList(0, Math.max(0, batches.size() - 1))) {
      others.add(parallel.submit(() -> {
        batch(b.getKey(), b.getValue(), operationTimeoutMillis);
        return null;
      }));
    }
    IOException failure = null;
    try {
      if (!batches.isEmpty()) {
        Map.Entry<TableName, List<Mutation>> last = batches.get(batches.size() - 1);
        batch(last.getKey(), last.getValue(), operationTimeoutMillis);
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
    return StateMutations.tableOf(change);
  }

  private void batch(TableName name, List<Mutation> mutations, int operationTimeoutMillis) throws IOException {
    if (mutations.isEmpty()) {
      return;
    }
    try (Table t = operationTimeoutMillis <= 0 ? connection.getTable(name)
        : connection.getTableBuilder(name, null).setOperationTimeout(operationTimeoutMillis).build()) {
      Object[] results = new Object[mutations.size()];
      t.batch(mutations, results);
    } catch (InterruptedException e) {
      // HBase may go on retrying the batch on the server's call threads (PooledConnection) and land it later:
      // versioned cells keep it from overwriting newer state (recovery.md, "A zombie's last protocol write")
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted writing " + name);
    }
  }

  private static <M extends Mutation> M sync(M m) {
    m.setDurability(Durability.SYNC_WAL);
    return m;
  }
}
