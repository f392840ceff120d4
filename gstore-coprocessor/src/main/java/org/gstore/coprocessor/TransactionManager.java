package org.gstore.coprocessor;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.MemberState;
import org.gstore.common.wire.Columns;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.CommitResponse;
import org.gstore.common.wire.generated.GStoreProtos.ReadStampProto;
import org.gstore.common.wire.generated.GStoreProtos.RowVersionProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.GStoreProtos.TxnOutcomeProto;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;

/**
 * Serializable transactions on the groups this region server leads, by optimistic concurrency control with
 * backward validation (Kung and Robinson): a transaction reads a snapshot of the leader's cache and records the
 * version of each row it read; its commit succeeds only if none of those rows changed since. A successful commit
 * gets a timestamp above every earlier one of the group and above every member cell in HBase, is made durable in
 * the shared WAL, then applied to the cache and acknowledged, and handed to the update shipper.
 *
 * <p>Transactions keep no state here between calls: the client holds the read versions and buffered writes, so
 * a client that disappears leaves nothing behind and blocks nobody. Each commit carries an id; a retried commit
 * gets the first one's outcome.
 */
final class TransactionManager {
  private final Connection connection;
  private final GStoreMetrics metrics;
  private final SharedWal wal;
  private final UpdateShipper shipper;
  private final Function<GroupId, Optional<GroupRecord>> groups;
  private final long retentionMillis;
  private final long waitMillis;
  private final Map<GroupId, GroupCache> caches = new ConcurrentHashMap<>();
  private final java.util.concurrent.ExecutorService preloader = java.util.concurrent.Executors.newSingleThreadExecutor(
      r -> {
        Thread t = new Thread(r, "gstore-cache-preload");
        t.setDaemon(true);
        return t;
      });
  private final Set<GroupRef> released = Collections.newSetFromMap(Collections.synchronizedMap(
      new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<GroupRef, Boolean> eldest) {
          return size() > 100_000;
        }
      }));

  /** Outcome of a read: the snapshot and the rows, or why not. */
  record ReadResult(TxnOutcomeProto outcome, long snapshot, List<RowVersionProto> rows, String message) {}

  TransactionManager(Connection connection, GStoreMetrics metrics, SharedWal wal, UpdateShipper shipper,
      Function<GroupId, Optional<GroupRecord>> groups, long retentionMillis, long waitMillis) {
    this.connection = connection;
    this.metrics = metrics;
    this.wal = wal;
    this.shipper = shipper;
    this.groups = groups;
    this.retentionMillis = retentionMillis;
    this.waitMillis = waitMillis;
  }

  ReadResult read(GroupId id, Long snapshot, List<KeyProto> rows) throws IOException {
    GroupCache cache = cache(id);
    if (cache == null) {
      return new ReadResult(TxnOutcomeProto.NO_GROUP, 0, List.of(), "no active group " + id);
    }
    long at = snapshot != null ? snapshot : cache.lastCommitTs();
    List<RowVersionProto> result = new ArrayList<>();
    for (KeyProto k : rows) {
      Key key = Key.of(k.getTable(), k.getRow().toByteArray());
      if (!cache.isMember(key)) {
        return new ReadResult(TxnOutcomeProto.NOT_MEMBER, at, List.of(), "row " + key + " is not in group " + id);
      }
      RowState state = cache.at(key, at);
      if (state == null) {
        return new ReadResult(TxnOutcomeProto.CONFLICT, at, List.of(), "snapshot " + at + " is older than the"
            + " snapshot retention (" + GStoreConfig.SNAPSHOT_RETENTION_MS + ")");
      }
      RowVersionProto.Builder row = RowVersionProto.newBuilder().setKey(k).setVersion(state.version());
      state.columns().forEach((c, v) -> row.addColumns(ColumnProto.newBuilder()
          .setFamily(Columns.family(c)).setQualifier(Columns.qualifier(c)).setValue(v)));
      result.add(row.build());
    }
    return new ReadResult(TxnOutcomeProto.OK, at, result, null);
  }

  CommitResponse commit(GroupId id, String txnId, List<ReadStampProto> reads, List<RowWriteProto> writes)
      throws IOException {
    GroupCache cache = cache(id);
    if (cache == null) {
      return outcome(TxnOutcomeProto.NO_GROUP, "no active group " + id);
    }
    cache.commitLock.lock();
    long start = System.nanoTime();
    try {
      if (cache.isClosed()) {
        return outcome(TxnOutcomeProto.NO_GROUP, "group " + id + " is being deleted or moved");
      }
      CommitResponse earlier = cache.recentOutcome(txnId);
      if (earlier != null) {
        return earlier;
      }
      for (RowWriteProto w : writes) {
        Key key = key(w.getKey());
        if (!cache.isMember(key)) {
          return outcome(TxnOutcomeProto.NOT_MEMBER, "row " + key + " is not in group " + id);
        }
      }
      for (ReadStampProto r : reads) {
        Key key = key(r.getKey());
        if (!cache.isMember(key)) {
          return outcome(TxnOutcomeProto.NOT_MEMBER, "row " + key + " is not in group " + id);
        }
        if (cache.latest(key).version() != r.getVersion()) {
          CommitResponse conflict = outcome(TxnOutcomeProto.CONFLICT, "row " + key + " changed since it was read");
          cache.remember(txnId, conflict);
          metrics.conflicted();
          return conflict;
        }
      }
      if (writes.isEmpty()) {
        return CommitResponse.newBuilder().setOutcome(TxnOutcomeProto.COMMITTED)
            .setCommitTs(cache.lastCommitTs()).build();
      }
      long now = System.currentTimeMillis();
      long commitTs = Math.max(cache.lastCommitTs() + 1, now);
      WalRecordProto record = WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(cache.group)).setCommitTs(commitTs).setTxnId(txnId).addAllWrites(writes).build();
      SharedWal.Position position = await(wal.append(cache.group, record.toByteArray()));
      Map<Key, RowState> states = new HashMap<>();
      for (RowWriteProto w : writes) {
        Key key = key(w.getKey());
        states.put(key, states.getOrDefault(key, cache.latest(key)).apply(w, commitTs));
      }
      cache.install(states, commitTs, now);
      shipper.ship(new UpdateShipper.Shipment(cache.group, commitTs, writes, position));
      CommitResponse committed = CommitResponse.newBuilder().setOutcome(TxnOutcomeProto.COMMITTED)
          .setCommitTs(commitTs).build();
      cache.remember(txnId, committed);
      metrics.committed(System.nanoTime() - start);
      return committed;
    } finally {
      cache.commitLock.unlock();
    }
  }

  /** Loads a new group's cache in the background, so its first transaction does not wait for it. */
  void preload(GroupId id) {
    preloader.execute(() -> {
      try {
        cache(id);
      } catch (IOException | RuntimeException e) {
        // the first transaction loads it then
      }
    });
  }

  void close() {
    preloader.shutdownNow();
  }

  /**
   * Ends transactions on a group about to be deleted: no more commits, everything committed shipped to HBase,
   * and the clock past the newest commit, so plain writes made after the delete win over the group's.
   */
  void release(GroupId id) throws IOException {
    Optional<GroupRecord> record = groups.apply(id);
    synchronized (this) {
      // under the lock cache() loads with: a cache being loaded right now is either installed before (and closed
      // below) or sees the group released and is not installed
      record.ifPresent(r -> released.add(r.group()));
    }
    GroupCache cache = closeCache(id);
    if (cache == null) {
      return;
    }
    shipper.drain(cache.group, waitMillis);
    long newest = cache.lastCommitTs();
    while (System.currentTimeMillis() <= newest) {
      try {
        TimeUnit.MILLISECONDS.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted");
      }
    }
    caches.remove(id, cache);
  }

  /** A leader region closes: ship what its groups committed and forget their caches; the next host reloads. */
  void regionClosing(Predicate<Key> inRegion) {
    for (GroupCache cache : List.copyOf(caches.values())) {
      if (inRegion.test(cache.group.leader())) {
        closeCache(cache.group.id());
        try {
          shipper.drain(cache.group, waitMillis);
        } catch (IOException e) {
          // the WAL keeps the commits; recovery replays them
        }
        caches.remove(cache.group.id(), cache);
      }
    }
  }

  private GroupCache closeCache(GroupId id) {
    GroupCache cache = caches.get(id);
    if (cache == null) {
      return null;
    }
    cache.commitLock.lock();
    try {
      cache.close();
      released.add(cache.group);
    } finally {
      cache.commitLock.unlock();
    }
    return cache;
  }

  /** The group's cache, loading its members from HBase on first use; null if the group is not active here. */
  private GroupCache cache(GroupId id) throws IOException {
    GroupCache cache = caches.get(id);
    if (cache != null) {
      return cache;
    }
    Optional<GroupRecord> record = groups.apply(id);
    if (record.isEmpty() || record.get().phase() != GroupPhase.ACTIVE) {
      return null;
    }
    synchronized (this) {
      if (released.contains(record.get().group())) {
        return null;
      }
      cache = caches.get(id);
      if (cache == null) {
        cache = load(record.get());
        caches.put(id, cache);
      }
      return cache;
    }
  }

  private GroupCache load(GroupRecord record) throws IOException {
    Map<TableName, List<Key>> byTable = new LinkedHashMap<>();
    for (Key k : record.members(MemberState.Status.JOINED)) {
      byTable.computeIfAbsent(TableName.valueOf(k.table()), t -> new ArrayList<>()).add(k);
    }
    Map<Key, RowState> loaded = new LinkedHashMap<>();
    long floor = 0;
    for (Map.Entry<TableName, List<Key>> e : byTable.entrySet()) {
      List<Get> gets = new ArrayList<>();
      e.getValue().forEach(k -> gets.add(new Get(k.row())));
      try (Table table = connection.getTable(e.getKey())) {
        Result[] results = table.get(gets);
        for (int i = 0; i < results.length; i++) {
          Map<ByteString, ByteString> columns = new java.util.TreeMap<>(Columns::compare);
          for (Cell c : results[i].rawCells()) {
            columns.put(Columns.key(CellUtil.cloneFamily(c), CellUtil.cloneQualifier(c)),
                ByteString.copyFrom(CellUtil.cloneValue(c)));
            floor = Math.max(floor, c.getTimestamp());
          }
          loaded.put(e.getValue().get(i), new RowState(0, Collections.unmodifiableMap(columns)));
        }
      }
    }
    return new GroupCache(record.group(), loaded, floor, retentionMillis);
  }

  private SharedWal.Position await(java.util.concurrent.CompletableFuture<SharedWal.Position> append)
      throws IOException {
    try {
      return append.get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted writing the WAL");
    } catch (ExecutionException e) {
      throw new IOException("the G-Store WAL could not make the commit durable; its outcome is unknown",
          e.getCause());
    } catch (TimeoutException e) {
      throw new IOException("the G-Store WAL did not make the commit durable in time; its outcome is unknown");
    }
  }

  private static Key key(KeyProto k) {
    return Key.of(k.getTable(), k.getRow().toByteArray());
  }

  private static CommitResponse outcome(TxnOutcomeProto outcome, String message) {
    return CommitResponse.newBuilder().setOutcome(outcome).setMessage(message).build();
  }
}
