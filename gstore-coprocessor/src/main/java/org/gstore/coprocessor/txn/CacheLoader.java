package org.gstore.coprocessor.txn;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.MemberState;
import org.gstore.common.wire.Columns;
import org.gstore.coprocessor.config.GStoreConfig;

/**
 * Reads a group's members from HBase into a new {@link GroupCache}. Each row's version is the newest timestamp of
 * any of its cells, delete markers included (a raw scan): commits stamp their cells with their commit timestamp,
 * so a row's version is the same whichever server loads it, and the group's first commit gets a timestamp above
 * everything HBase holds for its rows, tombstones too.
 *
 * <p>A member stamped too far in the future (beyond {@code gstore.txn.max.future.ms} ahead of this server's clock)
 * is refused with a clear error: the group's commits would have to be stamped after it, and deleting the group
 * would wait for the clock to get there.
 */
public final class CacheLoader implements GroupLoader {
  private final Connection connection;
  private final long maxFutureMillis;
  private final long retentionMillis;

  public CacheLoader(Connection connection, long maxFutureMillis, long retentionMillis) {
    this.connection = connection;
    this.maxFutureMillis = maxFutureMillis;
    this.retentionMillis = retentionMillis;
  }

  @Override
  public GroupCache load(GroupRecord record, long incarnation) throws IOException {
    Map<TableName, List<Key>> byTable = new LinkedHashMap<>();
    for (Key k : record.members(MemberState.Status.JOINED)) {
      byTable.computeIfAbsent(TableName.valueOf(k.table()), t -> new ArrayList<>()).add(k);
    }
    Map<Key, RowState> loaded = new LinkedHashMap<>();
    long floor = 0;
    for (Map.Entry<TableName, List<Key>> e : byTable.entrySet()) {
      try (Table table = connection.getTable(e.getKey())) {
        Map<Key, Long> versions = newestTimestamps(table, e.getValue());
        List<Get> gets = new ArrayList<>();
        e.getValue().forEach(k -> gets.add(new Get(k.row())));
        Result[] results = table.get(gets);
        for (int i = 0; i < results.length; i++) {
          Key key = e.getValue().get(i);
          long version = versions.getOrDefault(key, 0L);
          Map<ByteString, ByteString> columns = new TreeMap<>(Columns::compare);
          for (Cell c : results[i].rawCells()) {
            columns.put(Columns.key(CellUtil.cloneFamily(c), CellUtil.cloneQualifier(c)),
                ByteString.copyFrom(CellUtil.cloneValue(c)));
            version = Math.max(version, c.getTimestamp()); // a cell written between the scan and the get
          }
          requireNotInFuture(record, key, version);
          loaded.put(key, new RowState(version, Collections.unmodifiableMap(columns)));
          floor = Math.max(floor, version);
        }
      }
    }
    return new GroupCache(record.group(), incarnation, loaded, floor, retentionMillis);
  }

  /** Per row, the newest timestamp of any cell or delete marker: one raw scan over the rows of one table. */
  private static Map<Key, Long> newestTimestamps(Table table, List<Key> rows) throws IOException {
    List<RowRange> ranges = new ArrayList<>();
    Map<ByteString, Key> byRow = new HashMap<>();
    for (Key k : rows) {
      ranges.add(new RowRange(k.row(), true, k.row(), true));
      byRow.put(ByteString.copyFrom(k.row()), k);
    }
    Scan scan = new Scan().setRaw(true).readVersions(1).setFilter(new MultiRowRangeFilter(ranges))
        .setCacheBlocks(false);
    Map<Key, Long> newest = new HashMap<>();
    try (ResultScanner scanner = table.getScanner(scan)) {
      // next(), not the iterator: it would turn an I/O error into an unchecked one
      for (Result r = scanner.next(); r != null; r = scanner.next()) {
        Key key = byRow.get(ByteString.copyFrom(r.getRow()));
        if (key == null) {
          continue;
        }
        for (Cell c : r.rawCells()) {
          newest.merge(key, c.getTimestamp(), Math::max);
        }
      }
    }
    return newest;
  }

  private void requireNotInFuture(GroupRecord record, Key key, long version) throws DoNotRetryIOException {
    long now = System.currentTimeMillis();
    if (version > now && version - now > maxFutureMillis) {
      throw new DoNotRetryIOException("row " + key + " of group " + record.id() + " has a cell stamped " + version
          + ", " + (version - now) + " ms ahead of this server's clock (the limit is " + maxFutureMillis + " ms, "
          + GStoreConfig.TXN_MAX_FUTURE_MS + "); G-Store cannot stamp the group's commits after it. Delete the"
          + " group and rewrite the row with a current timestamp");
    }
  }
}
