package org.gstore.coprocessor.transport;

import java.io.Closeable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.KeyLocator;
import org.gstore.common.protocol.NodeId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the region server hosting a key from a cache of HBase's region locations, without ever blocking its caller.
 * The caller is the protocol thread, which every closing region's drain also needs: a lookup in {@code hbase:meta}
 * there, retrying while meta's region is in transition, held the drains of every region past their timeout, and the
 * server aborted. So a key whose region is not cached is answered {@code null} (its message waits for the engine's
 * retry), and looked up on a thread of its own, which fills the cache.
 *
 * <p>A region is looked up again only when there is evidence its cached location is wrong ({@link #invalidate}): a
 * peer answered "not mine", or the server it points to has no G-Store peer (it died, or closed its last G-Store
 * region). Looking up every key in meta on a timer put a meta round trip per member on the protocol thread's path,
 * which capped group creation throughput (measured: 27 creates/s at 1, 2 and 4 clients).
 */
public final class HBaseKeyLocator implements KeyLocator, Closeable {
  /** Looks a key's region up in {@code hbase:meta}; may block for as long as the client retries. */
  interface Lookup {
    /** @param reload whether a location the connection has cached must be read again */
    HRegionLocation locate(Key key, boolean reload) throws IOException;
  }

  private static final Logger LOG = LoggerFactory.getLogger(HBaseKeyLocator.class);

  private final Lookup lookup;
  private final ExecutorService lookups;
  /** Cached locations by table, by region start row. */
  private final Map<String, ConcurrentSkipListMap<byte[], HRegionLocation>> regions = new ConcurrentHashMap<>();
  /** Keys queued for a lookup, each with whether it must bypass the connection's cache: one lookup per key at once. */
  private final Map<Key, Boolean> queued = new ConcurrentHashMap<>();

  public HBaseKeyLocator(Connection connection) {
    this((key, reload) -> {
      try (RegionLocator locator = connection.getRegionLocator(TableName.valueOf(key.table()))) {
        return locator.getRegionLocation(key.row(), reload);
      }
    }, r -> {
      Thread t = new Thread(r, "gstore-locator");
      t.setDaemon(true);
      return t;
    });
  }

  HBaseKeyLocator(Lookup lookup, ThreadFactory thread) {
    this.lookup = lookup;
    this.lookups = Executors.newSingleThreadExecutor(thread);
  }

  /** The cached host of {@code key}'s region; {@code null}, and a lookup queued, when none is cached. */
  @Override
  public NodeId locate(Key key) {
    HRegionLocation cached = cached(key);
    if (cached != null) {
      return nodeId(cached.getServerName());
    }
    queue(key, false);
    return null;
  }

  /** Forgets the cached location of {@code key}'s region and looks it up again, past the connection's cache. */
  @Override
  public void invalidate(Key key) {
    HRegionLocation cached = cached(key);
    if (cached != null) {
      regions.get(key.table()).remove(cached.getRegion().getStartKey(), cached);
    }
    queue(key, true);
  }

  private HRegionLocation cached(Key key) {
    ConcurrentSkipListMap<byte[], HRegionLocation> table = regions.get(key.table());
    if (table == null) {
      return null;
    }
    byte[] row = key.row();
    Map.Entry<byte[], HRegionLocation> e = table.floorEntry(row);
    if (e == null || e.getValue().getServerName() == null) {
      return null;
    }
    byte[] end = e.getValue().getRegion().getEndKey();
    return end.length == 0 || Bytes.compareTo(row, end) < 0 ? e.getValue() : null;
  }

  /** Queues a lookup of {@code key}, or, if one is queued, makes it {@code reload} too: one per key at a time. */
  private void queue(Key key, boolean reload) {
    boolean[] first = new boolean[1];
    queued.compute(key, (k, queuedReload) -> {
      first[0] = queuedReload == null;
      return first[0] ? reload : queuedReload || reload;
    });
    if (!first[0]) {
      return;
    }
    try {
      lookups.execute(() -> lookUp(key));
    } catch (RejectedExecutionException stopping) {
      queued.remove(key); // closed: G-Store is stopping here
    }
  }

  /** On the lookup thread: fills the cache with {@code key}'s region, unless a lookup for another key did. */
  private void lookUp(Key key) {
    Boolean reload = queued.remove(key);
    if (reload == null || !reload && cached(key) != null) {
      return;
    }
    try {
      HRegionLocation found = lookup.locate(key, reload);
      if (found != null && found.getServerName() != null) {
        RegionInfo region = found.getRegion();
        ConcurrentSkipListMap<byte[], HRegionLocation> table =
            regions.computeIfAbsent(key.table(), t -> new ConcurrentSkipListMap<>(Bytes.BYTES_COMPARATOR));
        // a region found now replaces any cached one it overlaps (a split's parent, a merge's daughters)
        byte[] end = region.getEndKey();
        Map.Entry<byte[], HRegionLocation> before = table.lowerEntry(region.getStartKey());
        if (before != null && overlaps(before.getValue().getRegion(), region.getStartKey())) {
          table.remove(before.getKey());
        }
        (end.length == 0 ? table.tailMap(region.getStartKey(), true)
            : table.subMap(region.getStartKey(), true, end, false)).clear();
        table.put(region.getStartKey(), found);
      }
    } catch (IOException | RuntimeException e) { // NOPMD: the lookup thread outlives any failure; retries ask again
      LOG.debug("cannot locate {} now: {}", key, e.toString());
    }
  }

  /** Whether {@code region} holds the row {@code row}'s range start. */
  private static boolean overlaps(RegionInfo region, byte[] row) {
    byte[] end = region.getEndKey();
    return end.length == 0 || Bytes.compareTo(row, end) < 0;
  }

  /** Stops the lookup thread (a lookup in hand ends at its next wait). */
  @Override
  public void close() {
    lookups.shutdownNow();
  }

  public static NodeId nodeId(org.apache.hadoop.hbase.ServerName server) {
    return new NodeId(server.getServerName());
  }
}
