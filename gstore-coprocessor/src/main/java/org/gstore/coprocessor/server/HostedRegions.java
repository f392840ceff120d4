package org.gstore.coprocessor.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;

/**
 * The G-Store regions this server hosts whose protocol state is loaded ("ready": the engine serves their rows), the
 * rows among them that belong to a group (the fence), and the regions whose fence is loaded ("writable": plain
 * writes and shippers' writes are checked against it; see {@link RegionPhases}). A region is writable before it is
 * ready: after a crash, replay must write through the fence before the engine serves the groups it replays. Read
 * concurrently by RPC handlers (fencing, endpoint) and the protocol threads.
 */
public final class HostedRegions {
  /** How long a call waits for its region to load before it is refused (HBase's busy wait is 1 s too). */
  public static final long LOAD_WAIT_MILLIS = 1_000;
  private final Map<String, ConcurrentSkipListMap<byte[], Region>> ready = new ConcurrentHashMap<>();
  private final Map<Key, GroupRef> fenced = new ConcurrentHashMap<>();
  /** Where each region is in its life: writes are checked once its fence is loaded, before the engine serves it. */
  private final RegionPhases phases = new RegionPhases();
  /** Bulk loads committing store files, which a join's fence waits for (they take no row lock). */
  private final BulkLoadCommits bulkLoads = new BulkLoadCommits();

  RegionPhases phases() {
    return phases;
  }

  BulkLoadCommits bulkLoads() {
    return bulkLoads;
  }

  boolean isWritable(RegionInfo info) {
    return phases.takesWrites(info.getEncodedName());
  }

  /** {@link #isWritable}, waiting at most {@code millis} while the region loads ({@link RegionPhases#await}). */
  boolean awaitWritable(RegionInfo info, long millis) {
    return phases.await(info.getEncodedName(), phases::takesWrites, millis);
  }

  /** {@link #isReady}, waiting at most {@code millis} while the region loads ({@link RegionPhases#await}). */
  boolean awaitReady(RegionInfo info, long millis) {
    return phases.await(info.getEncodedName(), r -> isReady(info), millis);
  }

  /** The engine serves the region's rows, unless it began to close; false then. */
  boolean markReady(Region region) {
    RegionInfo info = region.getRegionInfo();
    if (!phases.serving(info.getEncodedName())) {
      return false;
    }
    ready.computeIfAbsent(info.getTable().getNameAsString(), t -> new ConcurrentSkipListMap<>(Bytes.BYTES_COMPARATOR))
        .put(info.getStartKey(), region);
    phases.changed(); // ready only now: calls waiting for it go on
    return true;
  }

  /**
   * Stops hosting a region: it is closing. Only that very region goes: after a split, a daughter with the same
   * start key may already be here.
   */
  void remove(RegionInfo info) {
    phases.closed(info.getEncodedName());
    ConcurrentSkipListMap<byte[], Region> regions = ready.get(info.getTable().getNameAsString());
    if (regions != null) {
      regions.computeIfPresent(info.getStartKey(),
          (start, r) -> r.getRegionInfo().getEncodedName().equals(info.getEncodedName()) ? null : r);
    }
    fenced.keySet().removeIf(k -> contains(info, k));
  }

  boolean isReady(RegionInfo info) {
    ConcurrentSkipListMap<byte[], Region> regions = ready.get(info.getTable().getNameAsString());
    Region r = regions == null ? null : regions.get(info.getStartKey());
    return r != null && r.getRegionInfo().getRegionId() == info.getRegionId();
  }

  /** The ready region holding {@code key}, or null. */
  Region regionOf(Key key) {
    ConcurrentSkipListMap<byte[], Region> regions = ready.get(key.table());
    if (regions == null) {
      return null;
    }
    byte[] row = key.row();
    Map.Entry<byte[], Region> e = regions.floorEntry(row);
    return e != null && e.getValue().getRegionInfo().containsRow(row) ? e.getValue() : null;
  }

  boolean hosts(Key key) {
    return regionOf(key) != null;
  }

  /** The group a hosted row belongs to, or null if it is free. */
  public GroupRef ownerOf(Key key) {
    return fenced.get(key);
  }

  void fence(Key key, GroupRef group) {
    fenced.put(key, group);
  }

  void unfence(Key key) {
    fenced.remove(key);
  }

  /** Frees {@code key} if {@code group} still holds it (a later group may have taken it meanwhile). */
  void unfence(Key key, GroupRef group) {
    fenced.remove(key, group);
  }

  /**
   * Makes the region's fence exactly {@code owners}: new owners first, then rows no longer grouped are let go, so
   * that a row grouped before and after is never unfenced in between.
   */
  void refence(RegionInfo info, java.util.Collection<org.gstore.common.protocol.OwnerRecord> owners) {
    java.util.Set<Key> grouped = new java.util.HashSet<>();
    for (org.gstore.common.protocol.OwnerRecord o : owners) {
      fenced.put(o.key(), o.group());
      grouped.add(o.key());
    }
    fenced.keySet().removeIf(k -> contains(info, k) && !grouped.contains(k));
  }

  /** A group holding a row of the region, or null if none does. */
  public GroupRef anyOwnerIn(RegionInfo info) {
    for (Map.Entry<Key, GroupRef> e : fenced.entrySet()) {
      if (contains(info, e.getKey())) {
        return e.getValue();
      }
    }
    return null;
  }

  int fencedRows() {
    return fenced.size();
  }

  public static boolean contains(RegionInfo info, Key key) {
    return info.getTable().getNameAsString().equals(key.table()) && info.containsRow(key.row());
  }
}
