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
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
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
 * <p>A load's reads are in flight side by side: one raw scan per region the members are in (one scan over several
 * regions would visit them one after another), then one batch of gets per table (HBase's client sends it to every
 * server at once), so a load costs about two round trips, not one per region.
 *
 * <p>A member stamped too far in the future (beyond {@code gstore.txn.max.future.ms} ahead of this server's clock)
 * is refused with a clear error: the group's commits would have to be stamped after it, and deleting the group
 * would wait for the clock to get there.
 */
public final class CacheLoader implements GroupLoader {
  /**
   * Reads one load has in flight at most; the loading thread waits for its own to end before it sends more. Loads
   * never wait for each other's reads: a group whose member region is unavailable delays only itself.
   */
  private static final int READS_PER_LOAD = 8;

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
    // a thread per read in flight, none kept idle: bounded by READS_PER_LOAD times the loads running at once
    this.reads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), threads);
  }

  @Override
  public GroupCache load(GroupRecord record, long incarnation) throws IOException {
    long started = System.nanoTime();
    Map<TableName, List<Key>> byTable = new LinkedHashMap<>();
    for (Key k : record.members(MemberState.Status.JOINED)) {
      byTable.computeIfAbsent(TableName.valueOf(k.table()), t -> new ArrayList<>()).add(k);
    }
    Semaphore inFlight = new Semaphore(READS_PER_LOAD);
    List<Future<?>> sent = new ArrayList<>();
    try {
      // every version before any value: a value read is then never older than the version it is cached under
      List<Future<Map<Key, Long>>> scans = new ArrayList<>();
      for (Map.Entry<TableName, List<Key>> e : byTable.entrySet()) {
        for (List<Key> inOneRegion : byRegion(e.getKey(), e.getValue())) {
          scans.add(send(() -> newestTimestamps(e.getKey(), inOneRegion), inFlight, sent, record));
        }
      }
      Map<Key, Long> versions = new HashMap<>();
      for (Future<Map<Key, Long>> scan : scans) {
        versions.putAll(await(scan, record));
      }
      Map<TableName, Future<Result[]>> gets = new LinkedHashMap<>();
      for (Map.Entry<TableName, List<Key>> e : byTable.entrySet()) {
        gets.put(e.getKey(), send(() -> get(e.getKey(), e.getValue()), inFlight, sent, record));
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
    } finally {
      sent.forEach(f -> f.cancel(true)); // after a failure, nothing keeps reading for a load that is over
    }
  }

  /** Stops the read threads: the reads in flight are interrupted, and their loads fail. */
  @Override
  public void close() {
    reads.shutdownNow();
  }

  /** Starts a read once fewer than {@link #READS_PER_LOAD} of this load's are in flight. */
  private <T> Future<T> send(Callable<T> read, Semaphore inFlight, List<Future<?>> sent, GroupRecord record)
      throws InterruptedIOException {
    try {
      inFlight.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted loading group " + record.id());
    }
    try {
      Future<T> f = reads.submit(() -> {
        try {
          return read.call();
        } finally {
          inFlight.release();
        }
      });
      sent.add(f);
      return f;
    } catch (RejectedExecutionException e) {
      inFlight.release();
      throw new InterruptedIOException("G-Store is stopping; group " + record.id() + " was not loaded");
    }
  }

  private static RowState rowState(Result result, long scannedVersion) {
    long version = scannedVersion;
    Map<ByteString, ByteString> columns = new TreeMap<>(Columns::compare);
    for (Cell c : result.listCells() == null ? List.<Cell>of() : result.listCells()) { // null: a row with no cell
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
