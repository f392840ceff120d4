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
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionReplicaUtil;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
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
    Map<Key, RowState> rows = new LinkedHashMap<>();
    List<Key> elsewhere = new ArrayList<>();
    long bytes = 0;
    for (Key key : keys) {
      Region region = bytes > MAX_BYTES ? null : hosting.apply(key);
      // a secondary replica may lag its primary: only a primary's rows are current
      RowState row = region == null || !RegionReplicaUtil.isDefaultReplica(region.getRegionInfo()) ? null
          : readOrNull(region, key);
      if (row == null) {
        elsewhere.add(key);
      } else {
        rows.put(key, row);
        bytes += row.columns().entrySet().stream().mapToLong(e -> e.getKey().size() + e.getValue().size()).sum();
      }
    }
    return new Read(rows, elsewhere);
  }

  private static RowState readOrNull(Region region, Key key) {
    try {
      long version = newestTimestamp(region, key.row());
      return rowState(region.get(new Get(key.row())).listCells(), version);
    } catch (IOException | RuntimeException e) { // a region closing, or a read hook failing: not this row's fate
      LOG.debug("reading row {} in region {} failed; the leader reads it through HBase's client ({})", key,
          region.getRegionInfo().getEncodedName(), e.toString());
      return null;
    }
  }

  private static long newestTimestamp(Region region, byte[] row) throws IOException {
    return newestTimestamp(region, new Scan().withStartRow(row).withStopRow(row, true).setRaw(true).readVersions(1)
        .setCacheBlocks(false), 0);
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
