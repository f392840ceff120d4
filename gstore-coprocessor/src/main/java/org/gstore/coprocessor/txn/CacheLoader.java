package org.gstore.coprocessor.txn;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
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
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.ServerName;
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
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.GStoreTxnService;
import org.gstore.common.wire.generated.GStoreProtos.LoadRowsRequest;
import org.gstore.common.wire.generated.GStoreProtos.LoadRowsResponse;
import org.gstore.common.wire.generated.GStoreProtos.RowVersionProto;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a group's members from HBase into a new {@link GroupCache}. Each row's version is the newest timestamp of
 * any of its cells, delete markers included (a raw scan): commits stamp their cells with their commit timestamp,
 * so a row's version is the same whichever server loads it, and the group's first commit gets a timestamp above
 * everything HBase holds for its rows, tombstones too.
 *
 * <p>Rows are read where they are: the leader's own in its regions ({@link LocalRows}); every other server's in one
 * call to it ({@code LoadRows}, served by any of its G-Store regions), all those calls side by side. What a server
 * did not read (its region moved or split since it was located, or the server runs a G-Store without that call) is
 * read through HBase's client: one raw scan per region the rows are in (one scan over several regions would visit
 * them one after another), then one batch of gets per table (HBase's client sends it to every server at once). A
 * load of K=50 rows over three servers and twelve regions makes two calls, not fifteen.
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

  private static final Logger LOG = LoggerFactory.getLogger(CacheLoader.class);
  /** A server's failed {@code LoadRows} is a warning once a minute at most, the others in between at DEBUG. */
  private static final long FALLBACK_WARNING_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final Connection connection;
  private final LocalRows local;
  private final long maxFutureMillis;
  private final long retentionMillis;
  private final GStoreMetrics metrics;
  private final ThreadPoolExecutor reads;
  private final AtomicLong nextFallbackWarning = new AtomicLong(System.nanoTime());

  public CacheLoader(Connection connection, LocalRows local, long maxFutureMillis, long retentionMillis,
      GStoreMetrics metrics, ThreadFactory threads) {
    this.connection = connection;
    this.local = local;
    this.maxFutureMillis = maxFutureMillis;
    this.retentionMillis = retentionMillis;
    this.metrics = metrics;
    // a thread per read in flight, none kept idle: bounded by READS_PER_LOAD times the loads running at once
    this.reads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), threads);
  }

  @Override
  public GroupCache load(GroupRecord record, long incarnation) throws IOException {
    long started = System.nanoTime();
    List<Key> members = List.copyOf(record.members(MemberState.Status.JOINED));
    Semaphore inFlight = new Semaphore(READS_PER_LOAD);
    List<Future<?>> sent = new ArrayList<>();
    try {
      // on a read thread, never the caller's: a load inside a client's RPC would run the region's read hooks
      // (the AccessController's cell filters) as that client, and cache only what the client may see
      LocalRows.Read here = await(send(() -> local.read(members), inFlight, sent, record), record);
      Map<Key, RowState> read = new HashMap<>(here.rows());
      List<Key> left = new ArrayList<>();
      for (Map.Entry<List<Key>, Future<LocalRows.Read>> asked : askServers(here.elsewhere(), inFlight, sent, record)) {
        LocalRows.Read there = awaitServer(asked.getValue(), asked.getKey(), record);
        read.putAll(there.rows());
        left.addAll(there.elsewhere());
      }
      int atServers = read.size();
      read.putAll(readThroughClient(left, inFlight, sent, record));
      Map<Key, RowState> loaded = new LinkedHashMap<>();
      long floor = 0;
      for (Key key : members) {
        RowState row = read.get(key);
        requireNotInFuture(record, key, row.version());
        loaded.put(key, row);
        floor = Math.max(floor, row.version());
      }
      metrics.groupLoaded(System.nanoTime() - started, atServers, left.size());
      return new GroupCache(record.group(), incarnation, loaded, floor, retentionMillis);
    } finally {
      sent.forEach(f -> f.cancel(true)); // after a failure, nothing keeps reading for a load that is over
    }
  }

  /** One {@code LoadRows} call in flight per server hosting some of {@code rows}, with the rows it was asked for. */
  private List<Map.Entry<List<Key>, Future<LocalRows.Read>>> askServers(List<Key> rows, Semaphore inFlight,
      List<Future<?>> sent, GroupRecord record) throws IOException {
    List<Map.Entry<List<Key>, Future<LocalRows.Read>>> asked = new ArrayList<>();
    for (List<Key> onOneServer : byServer(rows)) {
      asked.add(Map.entry(onOneServer, send(() -> loadRows(onOneServer), inFlight, sent, record)));
    }
    return asked;
  }

  /**
   * What a server answered; all of {@code rows} left to HBase's client if the call failed in any way, a timeout
   * included (HBase's client reports one as an {@link InterruptedIOException} too). Only an interrupt of this
   * thread ends the load.
   */
  private LocalRows.Read awaitServer(Future<LocalRows.Read> call, List<Key> rows, GroupRecord record)
      throws InterruptedIOException {
    try {
      return call.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted loading group " + record.id());
    } catch (ExecutionException e) {
      serverFailed(rows.size(), record, e.getCause());
      return new LocalRows.Read(Map.of(), rows);
    }
  }

  /**
   * Logs a server's failed {@code LoadRows}: a warning, at most once a minute (a rolling upgrade, a server under
   * load, can fail every load for a while), DEBUG in between. The rows are read anyway, through HBase's client, and
   * the {@code groupLoadRowsThroughClient} counter counts them all.
   */
  private void serverFailed(int rows, GroupRecord record, Throwable cause) {
    long now = System.nanoTime();
    long next = nextFallbackWarning.get();
    if (now - next >= 0 && nextFallbackWarning.compareAndSet(next, now + FALLBACK_WARNING_NANOS)) {
      LOG.warn("a server did not read {} rows of group {}, read through HBase's client instead ({}); until a minute"
          + " has passed, further such fallbacks are logged at DEBUG", rows, record.id(), String.valueOf(cause));
    } else {
      LOG.debug("a server did not read {} rows of group {}, read through HBase's client instead ({})", rows,
          record.id(), String.valueOf(cause));
    }
  }

  private LocalRows.Read loadRows(List<Key> rows) throws IOException {
    LoadRowsRequest.Builder request = LoadRowsRequest.newBuilder();
    rows.forEach(k -> request.addRows(DatagramCodec.toProto(k)));
    Key via = rows.get(0); // any row of the server reaches it
    LoadRowsResponse response;
    try (Table table = connection.getTable(TableName.valueOf(via.table()))) {
      response = GStoreTxnService.newBlockingStub(table.coprocessorService(via.row())).loadRows(null, request.build());
    } catch (ServiceException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
    }
    Map<Key, RowState> read = new HashMap<>();
    for (RowVersionProto row : response.getRowsList()) {
      Map<ByteString, ByteString> columns = new TreeMap<>(Columns::compare);
      row.getColumnsList().forEach(c -> columns.put(Columns.key(c.getFamily(), c.getQualifier()), c.getValue()));
      read.put(Requests.key(row.getKey()), new RowState(row.getVersion(), Collections.unmodifiableMap(columns)));
    }
    read.keySet().retainAll(rows); // a server answers for what it was asked, nothing else
    List<Key> elsewhere = new ArrayList<>();
    for (Key k : rows) { // what it gave back, or (a server answering wrongly) left out
      if (!read.containsKey(k)) {
        elsewhere.add(k);
      }
    }
    return new LocalRows.Read(read, elsewhere);
  }

  /** The rows grouped by the server holding them now (HBase's client's cached locations). */
  private Collection<List<Key>> byServer(List<Key> rows) throws IOException {
    Map<ServerName, List<Key>> byServer = new LinkedHashMap<>();
    for (Map.Entry<TableName, List<Key>> e : byTable(rows).entrySet()) {
      try (RegionLocator locator = connection.getRegionLocator(e.getKey())) {
        for (Key k : e.getValue()) {
          byServer.computeIfAbsent(locator.getRegionLocation(k.row()).getServerName(), s -> new ArrayList<>()).add(k);
        }
      }
    }
    return byServer.values();
  }

  /** The rows through HBase's client: every version before any value. */
  private Map<Key, RowState> readThroughClient(List<Key> rows, Semaphore inFlight, List<Future<?>> sent,
      GroupRecord record) throws IOException {
    if (rows.isEmpty()) {
      return Map.of();
    }
    Map<TableName, List<Key>> byTable = byTable(rows);
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
    Map<Key, RowState> read = new HashMap<>();
    for (Map.Entry<TableName, List<Key>> e : byTable.entrySet()) {
      Result[] results = await(gets.get(e.getKey()), record);
      for (int i = 0; i < results.length; i++) {
        Key key = e.getValue().get(i);
        read.put(key, LocalRows.rowState(results[i].listCells(), versions.getOrDefault(key, 0L)));
      }
    }
    return read;
  }

  private static Map<TableName, List<Key>> byTable(List<Key> rows) {
    Map<TableName, List<Key>> byTable = new LinkedHashMap<>();
    for (Key k : rows) {
      byTable.computeIfAbsent(TableName.valueOf(k.table()), t -> new ArrayList<>()).add(k);
    }
    return byTable;
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
