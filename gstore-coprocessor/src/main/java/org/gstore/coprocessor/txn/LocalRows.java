package org.gstore.coprocessor.txn;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.RegionReplicaUtil;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.Columns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads rows for a group's cache on the server that hosts them, without HBase's RPC: the leader's own members, and
 * other servers' members when their leader asks ({@code LoadRows}). Each row is read as {@link CacheLoader} reads it
 * through HBase's client: its version first (the newest timestamp of any of its cells or delete markers, a raw scan
 * of the row), then its cells, whose timestamps count too, so a value is never older than the version it is cached
 * under. A row whose region is not served here, or whose read fails (its region began to close), is left to the
 * caller, which reads it through HBase's client.
 */
public final class LocalRows {
  private static final Logger LOG = LoggerFactory.getLogger(LocalRows.class);
  /** The most rows one read takes: the largest group {@code gstore.group.max.size} allows. */
  public static final int MAX_ROWS = 100_000;
  /**
   * The cell bytes one read gathers at most (one answer of HBase's RPC); the rows after are left to the caller, so
   * a call for many large rows costs this server a bounded answer.
   */
  static final long MAX_BYTES = 32L << 20;

  private final Function<Key, Region> hosting;

  /** @param hosting the region serving a row here, or null */
  public LocalRows(Function<Key, Region> hosting) {
    this.hosting = hosting;
  }

  /** What a server read: the rows it hosts, and those it left to the caller. */
  public record Read(Map<Key, RowState> rows, List<Key> elsewhere) {}

  /**
   * The rows of {@code keys} hosted here, as of now; the others, and those after {@link #MAX_BYTES} of cells, left
   * to the caller. Reads run HBase's read hooks (the {@code AccessController}'s) as the current RPC's user.
   *
   * @throws IllegalArgumentException for more than {@link #MAX_ROWS} keys
   */
  public Read read(List<Key> keys) {
    if (keys.size() > MAX_ROWS) {
      throw new IllegalArgumentException("a read of " + keys.size() + " rows; at most " + MAX_ROWS);
    }
    Map<Region, List<Key>> byRegion = new LinkedHashMap<>();
    List<Key> elsewhere = new ArrayList<>();
    for (Key key : keys) {
      Region region = hosting.apply(key);
      // a secondary replica may lag its primary: only a primary's rows are current
      if (region == null || !RegionReplicaUtil.isDefaultReplica(region.getRegionInfo())) {
        elsewhere.add(key);
      } else {
        byRegion.computeIfAbsent(region, r -> new ArrayList<>()).add(key);
      }
    }
    Map<Key, RowState> rows = new LinkedHashMap<>();
    long bytes = 0;
    for (Map.Entry<Region, List<Key>> inRegion : byRegion.entrySet()) {
      Map<Key, RowState> read = bytes > MAX_BYTES ? Map.of()
          : readOrNone(inRegion.getKey(), inRegion.getValue(), MAX_BYTES - bytes);
      for (Key key : inRegion.getValue()) {
        RowState row = read.get(key);
        if (row == null) {
          elsewhere.add(key);
        } else {
          rows.put(key, row);
          bytes += size(row);
        }
      }
    }
    return new Read(rows, elsewhere);
  }

  /**
   * The rows of {@code keys} in {@code region}, in row order, until one takes their cells past {@code budget}
   * bytes: every row's version first (one raw scan), then every row's cells (one scan). None if the region could
   * not be read.
   */
  private static Map<Key, RowState> readOrNone(Region region, List<Key> keys, long budget) {
    List<byte[]> sorted = keys.stream().map(Key::row).sorted(Bytes.BYTES_COMPARATOR).distinct().toList();
    try {
      Map<byte[], Long> versions = new TreeMap<>(Bytes.BYTES_COMPARATOR);
      forEachRow(region, new Scan().setRaw(true).readVersions(1), sorted, (row, cells) -> {
        versions.put(row, cells.stream().mapToLong(Cell::getTimestamp).max().orElse(0));
        return true;
      });
      Map<byte[], RowState> read = new TreeMap<>(Bytes.BYTES_COMPARATOR);
      long[] bytes = {0};
      byte[] last = forEachRow(region, new Scan().readVersions(1), sorted, (row, cells) -> {
        RowState state = rowState(cells, versions.getOrDefault(row, 0L));
        read.put(row, state);
        bytes[0] += size(state);
        return bytes[0] <= budget;
      });
      Map<Key, RowState> rows = new LinkedHashMap<>();
      for (Key key : keys) {
        if (last == null || Bytes.compareTo(key.row(), last) <= 0) { // rows after the last one read are not read
          rows.put(key, read.getOrDefault(key.row(), rowState(null, versions.getOrDefault(key.row(), 0L))));
        }
      }
      return rows;
    } catch (IOException | RuntimeException e) { // a region closing, or a read hook failing: not these rows' fate
      LOG.debug("reading {} rows in region {} failed; the leader reads them through HBase's client ({})", keys.size(),
          region.getRegionInfo().getEncodedName(), e.toString());
      return Map.of();
    }
  }

  /** Sees a row's cells while its scanner is open (the cells may live in buffers the scanner releases). */
  interface RowVisitor {
    /** @return whether to go on to the next row */
    boolean visit(byte[] row, List<Cell> cells);
  }

  /**
   * Shows {@code visitor} the cells {@code scan} finds in each of {@code rows} (sorted, distinct) of {@code region},
   * rows without any skipped, with one scanner for all: it is moved forward to each row ({@link
   * RegionScanner#reseek}), so a row costs a seek, not a scanner's opening. A row found past the one asked for is
   * kept for the rows after it (a reseek never moves a scanner back; the rows between have no cells).
   *
   * @return the row at which the visitor stopped, or null if it saw them all
   */
  static byte[] forEachRow(Region region, Scan scan, List<byte[]> rows, RowVisitor visitor) throws IOException {
    if (rows.isEmpty()) {
      return null;
    }
    scan.withStartRow(rows.get(0)).withStopRow(rows.get(rows.size() - 1), true).setCacheBlocks(false);
    try (RegionScanner scanner = region.getScanner(scan)) {
      List<Cell> next = new ArrayList<>(); // the row the scanner returned last, until the rows asked for pass it
      boolean more = true;
      for (byte[] row : rows) {
        if (!next.isEmpty() && Bytes.compareTo(CellUtil.cloneRow(next.get(0)), row) < 0) {
          next.clear();
        }
        if (next.isEmpty() && more) {
          scanner.reseek(row);
          do {
            more = scanner.next(next);
          } while (next.isEmpty() && more);
        }
        if (!next.isEmpty() && CellUtil.matchingRows(next.get(0), row) && !visitor.visit(row, next)) {
          return row;
        }
      }
    }
    return null;
  }

  private static long size(RowState row) {
    return row.columns().entrySet().stream().mapToLong(e -> e.getKey().size() + e.getValue().size()).sum();
  }

  /** The newest timestamp of the cells {@code scan} finds in {@code region} (raw: markers too), or {@code none}. */
  public static long newestTimestamp(Region region, Scan scan, long none) throws IOException {
    long newest = none;
    List<Cell> cells = new ArrayList<>();
    try (RegionScanner scanner = region.getScanner(scan)) {
      boolean more;
      do {
        more = scanner.next(cells);
        for (Cell c : cells) {
          newest = Math.max(newest, c.getTimestamp());
        }
        cells.clear();
      } while (more);
    }
    return newest;
  }

  /**
   * A row's cells as a cache entry, at {@code version} or the newest of their timestamps if later (a cell written
   * between the version's read and the cells'). {@code cells} may be null: a row with none.
   */
  static RowState rowState(List<Cell> cells, long version) {
    Map<ByteString, ByteString> columns = new TreeMap<>(Columns::compare);
    for (Cell c : cells == null ? List.<Cell>of() : cells) {
      columns.put(Columns.key(CellUtil.cloneFamily(c), CellUtil.cloneQualifier(c)),
          ByteString.copyFrom(CellUtil.cloneValue(c)));
      version = Math.max(version, c.getTimestamp());
    }
    return new RowState(version, Collections.unmodifiableMap(columns));
  }
}
