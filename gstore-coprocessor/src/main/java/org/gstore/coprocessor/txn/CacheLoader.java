package org.gstore.coprocessor.txn;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.MemberState;
import org.gstore.common.wire.Columns;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.metrics.GStoreMetrics;

/**
 * Reads a group's members from HBase into a new {@link GroupCache}. Each row's version is the newest timestamp of
 * any of its cells, delete markers included (a raw scan): commits stamp their cells with their commit timestamp,
 * so a row's version is the same whichever server loads it, and the group's first commit gets a timestamp above
 * everything HBase holds for its rows, tombstones too.
 *
 * <p>All reads of a load are in flight at once: one raw scan per region the members are in (a scan over several
 * regions visits them one after another) and one batch of gets per table (HBase's client sends it to every server
 * at once), so a load costs about one round trip to the slowest region, not one per region.
 *
 * <p>A member stamped too far in the future (beyond {@code gstore.txn.max.future.ms} ahead of this server's clock)
 * is refused with a clear error: the group's commits would have to be stamped after it, and deleting the group
 * would wait for the clock to get there.
 */
public final class CacheLoader implements GroupLoader {
  /** Reads in flight at once, over all loads of this server; more wait their turn. */
  private static final int READ_THREADS = 16;

  private final Connection connection;
  private final long maxFutureMillis;
  private final long retentionMillis;
  private final GStoreMetrics metrics;
  private final ThreadPoolExecutor reads;

  public CacheLoader(Connection connection, long maxFutureMillis, long retentionMillis, GStoreMetrics metrics,
      ThreadFactory threads) {
    this.connection = connection;
    this.maxFutureMillis = maxFutureMillis;
    this.retentionMillis = retentionMillis;
    this.metrics = metrics;
    this.reads = new ThreadPoolExecutor(READ_THREADS, READ_THREADS, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        threads);
    reads.allowCoreThreadTimeOut(true); // no idle threads on a server whose groups are quiet
  }

  @Override
  public GroupCache load(GroupRecord record, long incarnation) throws IOException {
    long started = System.nanoTime();
    Map<TableName, List<Key>> byTable = new LinkedHashMap<>();
    for (Key k : record.members(MemberState.Status.JOINED)) {
      byTable.computeIfAbsent(TableName.valueOf(k.table()), t -> new ArrayList<>()).add(k);
    }
    List<Future<Map<Key, Long>>> scans = new ArrayList<>();
    Map<TableName, Future<Result[]>> gets = new LinkedHashMap<>();
    try {
      for (Map.Entry<TableName, List<Key>> e : byTable.entrySet()) {
        for (List<Key> inOneRegion : byRegion(e.getKey(), e.getValue())) {
          scans.add(reads.submit(() -> newestTimestamps(e.getKey(), inOneRegion)));
        }
        gets.put(e.getKey(), reads.submit(() -> get(e.getKey(), e.getValue())));
      }
      Map<Key, Long> versions = new HashMap<>();
      for (Future<Map<Key, Long>> scan : scans) {
        versions.putAll(await(scan, record));
      }
      Map<Key, RowState> loaded = new LinkedHashMap<>();
      long floor = 0;
      for (Map.Entry<TableName, List<Key>> e : byTable.entrySet()) {
        Result[] results = await(gets.get(e.getKey()), record);
        for (int i = 0; i < results.length; i++) {
          Key key = e.getValue().get(i);
          RowState row = rowState(results[i], versions.getOrDefault(key, 0L));
          requireNotInFuture(record, key, row.version());
          loaded.put(key, row);
          floor = Math.max(floor, row.version());
        }
      }
      metrics.groupLoaded(System.nanoTime() - started);
      return new GroupCache(record.group(), incarnation, loaded, floor, retentionMillis);
    } catch (RejectedExecutionException e) {
      throw stopping(record);
    } finally {
      scans.forEach(f -> f.cancel(true)); // after a failure, nothing keeps reading for a load that is over
      gets.values().forEach(f -> f.cancel(true));
    }
  }

  /** Stops the read threads; a load in progress fails. */
  @Override
  public void close() {
    reads.shutdownNow();
  }

  private static RowState rowState(Result result, long scannedVersion) {
    long version = scannedVersion;
    Map<ByteString, ByteString> columns = new TreeMap<>(Columns::compare);
    for (Cell c : result.rawCells()) {
      columns.put(Columns.key(CellUtil.cloneFamily(c), CellUtil.cloneQualifier(c)),
          ByteString.copyFrom(CellUtil.cloneValue(c)));
      version = Math.max(version, c.getTimestamp()); // a cell written between the scan and the get
    }
    return new RowState(version, Collections.unmodifiableMap(columns));
  }

  /** The rows grouped by the region holding them now (HBase's client's cached locations). */
  private Collection<List<Key>> byRegion(TableName name, List<Key> rows) throws IOException {
    Map<ByteString, List<Key>> byStartKey = new HashMap<>();
    try (RegionLocator locator = connection.getRegionLocator(name)) {
      for (Key k : rows) {
        byte[] start = locator.getRegionLocation(k.row()).getRegion().getStartKey();
        byStartKey.computeIfAbsent(ByteString.copyFrom(start), s -> new ArrayList<>()).add(k);
      }
    }
    return byStartKey.values();
  }

  private Result[] get(TableName name, List<Key> rows) throws IOException {
    List<Get> gets = new ArrayList<>(rows.size());
    rows.forEach(k -> gets.add(new Get(k.row())));
    try (Table table = connection.getTable(name)) {
      return table.get(gets);
    }
  }

  /**
   * Per row, the newest timestamp of any cell or delete marker: one raw scan over rows of one region (if the region
   * split or moved since it was located, the scan simply goes on into the next one).
   */
  private Map<Key, Long> newestTimestamps(TableName name, List<Key> rows) throws IOException {
    List<RowRange> ranges = new ArrayList<>();
    Map<ByteString, Key> byRow = new HashMap<>();
    byte[] first = rows.get(0).row();
    byte[] last = first;
    for (Key k : rows) {
      ranges.add(new RowRange(k.row(), true, k.row(), true));
      byRow.put(ByteString.copyFrom(k.row()), k);
      first = Bytes.compareTo(k.row(), first) < 0 ? k.row() : first;
      last = Bytes.compareTo(k.row(), last) > 0 ? k.row() : last;
    }
    // bounded: the filter alone would have the scan open every region from the table's start to the last row
    Scan scan = new Scan().withStartRow(first).withStopRow(last, true).setRaw(true).readVersions(1)
        .setFilter(new MultiRowRangeFilter(ranges)).setCacheBlocks(false);
    Map<Key, Long> newest = new HashMap<>();
    try (Table table = connection.getTable(name); ResultScanner scanner = table.getScanner(scan)) {
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

  private static InterruptedIOException stopping(GroupRecord record) {
    return new InterruptedIOException("G-Store is stopping; group " + record.id() + " was not loaded");
  }

  private static <T> T await(Future<T> read, GroupRecord record) throws IOException {
    try {
      return read.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted loading group " + record.id());
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException("loading group " + record.id() + " failed", cause);
    } catch (CancellationException e) {
      throw stopping(record);
    }
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
