package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.Server;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.HasRegionServerServices;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.OnlineRegions;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.wal.WAL;

/**
 * What G-Store needs of the region server it runs in: whether it stops as a whole, a way to abort it on what
 * G-Store cannot survive, and syncs of its HBase WALs. Outside a region server (tools, tests) it never stops and
 * cannot be aborted.
 */
final class HostServer {
  private final Server server;
  private final OnlineRegions onlineRegions;

  private HostServer(Server server, OnlineRegions onlineRegions) {
    this.server = server;
    this.onlineRegions = onlineRegions;
  }

  /**
   * The region server of {@code env}. HBase hands its services only to core coprocessors
   * ({@link HasRegionServerServices}); a table coprocessor reaches the server through the online-regions view its
   * environment exposes, which is the region server itself.
   */
  static HostServer of(RegionCoprocessorEnvironment env) {
    Server server = null;
    if (env instanceof HasRegionServerServices services) {
      server = services.getRegionServerServices();
    } else if (env.getOnlineRegions() instanceof Server s) {
      server = s;
    }
    return new HostServer(server, env.getOnlineRegions());
  }

  /** Whether the region server is stopping as a whole (every region closes, none reopens here). */
  boolean stopping() {
    return server != null && (server.isStopping() || server.isStopped() || server.isAborted());
  }

  /** Whether the region server aborts: its regions close without flushing what they were shipped. */
  boolean aborted() {
    return server != null && server.isAborted();
  }

  /** Aborts the region server (nothing happens outside one). */
  void abort(String why, Throwable cause) {
    if (server != null) {
      server.abort(why, cause);
    }
  }

  /**
   * The descriptor a region of {@code table} open here serves with, or null if none is open here (or the region
   * server cannot list them: the caller asks the master instead).
   */
  TableDescriptor descriptorServedHere(TableName table) {
    try {
      List<? extends Region> open = onlineRegions.getRegions(table);
      return open.isEmpty() ? null : open.get(0).getTableDescriptor();
    } catch (IOException e) {
      return null;
    }
  }

  /** Syncs every HBase WAL of the region server (once each, whatever number of regions share it). */
  void syncHBaseWals() throws IOException {
    Set<WAL> wals = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Region r : onlineRegions.getRegions()) {
      if (r instanceof HRegion h && h.getWAL() != null) {
        wals.add(h.getWAL());
      }
    }
    for (WAL w : wals) {
      w.sync();
    }
  }
}
