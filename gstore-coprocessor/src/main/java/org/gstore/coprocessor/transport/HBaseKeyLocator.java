package org.gstore.coprocessor.transport;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.KeyLocator;
import org.gstore.common.protocol.NodeId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the region server hosting a key from HBase's region locations, through the connection's own location
 * cache (per region, in memory). A key is looked up again in {@code hbase:meta} only when there is evidence its
 * cached location is wrong: a peer answered "not mine", or the server it points to has no G-Store peer (it died,
 * or closed its last G-Store region). Looking up every key in meta on a timer put a meta round trip per member on
 * the protocol thread's path, which capped group creation throughput (measured: 27 creates/s at 1, 2 and 4
 * clients).
 */
public final class HBaseKeyLocator implements KeyLocator {
  private static final Logger LOG = LoggerFactory.getLogger(HBaseKeyLocator.class);

  private final Connection connection;
  private final Map<Key, Boolean> stale = new ConcurrentHashMap<>();

  public HBaseKeyLocator(Connection connection) {
    this.connection = connection;
  }

  @Override
  public NodeId locate(Key key) {
    boolean reload = stale.remove(key) != null;
    try (RegionLocator locator = connection.getRegionLocator(TableName.valueOf(key.table()))) {
      HRegionLocation location = locator.getRegionLocation(key.row(), reload);
      return location == null || location.getServerName() == null ? null : nodeId(location.getServerName());
    } catch (IOException e) {
      LOG.debug("cannot locate {} now: {}", key, e.toString());
      stale.put(key, Boolean.TRUE);
      return null;
    }
  }

  @Override
  public void invalidate(Key key) {
    stale.put(key, Boolean.TRUE);
  }

  public static NodeId nodeId(org.apache.hadoop.hbase.ServerName server) {
    return new NodeId(server.getServerName());
  }
}
