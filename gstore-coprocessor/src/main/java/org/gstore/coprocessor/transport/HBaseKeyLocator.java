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
 * retry), and looked up on threads of its own, which fill the cache.
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

  /**
   * Lookups at once: a lookup of a region in transition retries for as long as the client does, and only holds
   * up the lookups queued behind it when this many such regions are looked up together.
   */
  static final int LOOKUP_THREADS = 4;
  /** A key queued for a lookup that was never invalidated: any cached location answers it. */
  private static final long NEVER = Long.MIN_VALUE;
  private static final Logger LOG = LoggerFactory.getLogger(HBaseKeyLocator.class);

  /** A cached location and when it was read ({@code System.nanoTime()}). */
  private record Cached(HRegionLocation location, long readAt) {}

  private final Lookup lookup;
  private final ExecutorService lookups;
  /** Cached locations by table, by region start row. */
  private final Map<String, ConcurrentSkipListMap<byte[], Cached>> regions = new ConcurrentHashMap<>();
  /**
   * Keys queued for a lookup or being looked up, one lookup per key at once, each with when it was last invalidated:
   * a location read after that answers it, as any does a key never invalidated ({@link #NEVER}).
   */
  private final Map<Key, Long> queued = new ConcurrentHashMap<>();

  /** @param threads makes the {@link #LOOKUP_THREADS} lookup threads */
  public HBaseKeyLocator(Connection connection, ThreadFactory threads) {
    this((key, reload) -> {
      try (RegionLocator locator = connection.getRegionLocator(TableName.valueOf(key.table()))) {
        return locator.getRegionLocation(key.row(), reload);
      }
    }, threads);
  }

  HBaseKeyLocator(Lookup lookup, ThreadFactory thread) {
    this.lookup = lookup;
    this.lookups = Executors.newFixedThreadPool(LOOKUP_THREADS, thread);
  }

  /** The cached host of {@code key}'s region; {@code null}, and a lookup queued, when none is cached. */
  @Override
  public NodeId locate(Key key) {
    Cached cached = cached(key);
    if (cached != null) {
      return nodeId(cached.location().getServerName());
    }
    queue(key, NEVER);
    return null;
  }

  /** Forgets the cached location of {@code key}'s region and looks it up again, past the connection's cache. */
  @Override
  public void invalidate(Key key) {
    Cached cached = cached(key);
    if (cached != null) {
      regions.get(key.table()).remove(cached.location().getRegion().getStartKey(), cached);
    }
    queue(key, System.nanoTime());
  }

  private Cached cached(Key key) {
    ConcurrentSkipListMap<byte[], Cached> table = regions.get(key.table());
    if (table == null) {
      return null;
    }
    byte[] row = key.row();
    Map.Entry<byte[], Cached> e = table.floorEntry(row);
    return e == null || !contains(e.getValue().location().getRegion(), row) ? null : e.getValue();
  }

  /**
   * Queues a lookup of {@code key}, or, if one is queued, makes it answer only from a location read after
   * {@code invalidatedAt} too: one lookup per key at a time.
   */
  private void queue(Key key, long invalidatedAt) {
    boolean[] first = new boolean[1];
    queued.compute(key, (k, queuedAt) -> {
      first[0] = queuedAt == null;
      return first[0] ? invalidatedAt : Math.max(queuedAt, invalidatedAt);
    });
    if (first[0]) {
      resubmit(key);
    }
  }

  private void resubmit(Key key) {
    try {
      lookups.execute(() -> lookUp(key));
    } catch (RejectedExecutionException stopping) {
      queued.remove(key); // closed: G-Store is stopping here
    }
  }

  /**
   * On a lookup thread: fills the cache with {@code key}'s region, unless a location read since the key was last
   * invalidated is cached already (a lookup for another key of the region read it). The key stays queued until
   * this ends, so no other lookup of it runs meanwhile; one invalidated meanwhile is looked up again.
   */
  private void lookUp(Key key) {
    Long invalidatedAt = queued.get(key);
    if (invalidatedAt == null) {
      return;
    }
    try {
      Cached cached = cached(key);
      if (cached == null || invalidatedAt != NEVER && cached.readAt() - invalidatedAt <= 0) {
        long readAt = System.nanoTime();
        HRegionLocation found = lookup.locate(key, invalidatedAt != NEVER);
        if (found != null && found.getServerName() != null) {
          cache(key.table(), new Cached(found, readAt));
        }
      }
    } catch (IOException | RuntimeException e) { // NOPMD: the lookup thread outlives any failure; retries ask again
      LOG.debug("cannot locate {} now: {}", key, e.toString());
    } finally {
      if (!queued.remove(key, invalidatedAt)) {
        resubmit(key); // invalidated during the lookup: what it read may be older than the evidence
      }
    }
  }

  /** Caches a region found now in place of every cached region it overlaps (a split's parent, a merge's daughters). */
  private void cache(String tableName, Cached found) {
    RegionInfo region = found.location().getRegion();
    ConcurrentSkipListMap<byte[], Cached> table =
        regions.computeIfAbsent(tableName, t -> new ConcurrentSkipListMap<>(Bytes.BYTES_COMPARATOR));
    synchronized (table) { // two lookups of overlapping regions must not interleave their clears and puts
      Map.Entry<byte[], Cached> before = table.lowerEntry(region.getStartKey());
      if (before != null && contains(before.getValue().location().getRegion(), region.getStartKey())) {
        table.remove(before.getKey());
      }
      byte[] end = region.getEndKey();
      (end.length == 0 ? table.tailMap(region.getStartKey(), true)
          : table.subMap(region.getStartKey(), true, end, false)).clear();
      table.put(region.getStartKey(), found);
    }
  }

  /** Whether {@code region} holds {@code row}, given that it starts at or before it. */
  private static boolean contains(RegionInfo region, byte[] row) {
    byte[] end = region.getEndKey();
    return end.length == 0 || Bytes.compareTo(row, end) < 0;
  }

  /** Stops the lookup threads (a lookup in hand ends at its next wait). */
  @Override
  public void close() {
    lookups.shutdownNow();
  }

  public static NodeId nodeId(org.apache.hadoop.hbase.ServerName server) {
    return new NodeId(server.getServerName());
  }
}
