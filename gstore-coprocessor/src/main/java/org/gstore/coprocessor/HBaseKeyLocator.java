package org.gstore.coprocessor;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
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
 * Finds the region server hosting a key from HBase's region locations. Answers are cached briefly; a key a peer
 * said is "not mine", and any key whose cached answer is older than the cache time, is looked up again in
 * {@code hbase:meta}, so retries follow regions that moved even when their old server does not answer at all.
 */
final class HBaseKeyLocator implements KeyLocator {
  private static final Logger LOG = LoggerFactory.getLogger(HBaseKeyLocator.class);

  private record Cached(NodeId node, long at) {}

  private final Connection connection;
  private final long cacheMillis;
  private final LongSupplier clock;
  private final Map<Key, Cached> cache = new ConcurrentHashMap<>();
  private final Map<Key, Boolean> stale = new ConcurrentHashMap<>();

  HBaseKeyLocator(Connection connection, long cacheMillis, LongSupplier clock) {
    this.connection = connection;
    this.cacheMillis = cacheMillis;
    this.clock = clock;
  }

  @Override
  public NodeId locate(Key key) {
    long now = clock.getAsLong();
    Cached c = cache.get(key);
    if (c != null && now - c.at < cacheMillis) {
      return c.node;
    }
    boolean reload = c != null || stale.remove(key) != null;
    try (RegionLocator locator = connection.getRegionLocator(TableName.valueOf(key.table()))) {
      HRegionLocation location = locator.getRegionLocation(key.row(), reload);
      if (location == null || location.getServerName() == null) {
        return null;
      }
      NodeId node = nodeId(location.getServerName());
      cache.put(key, new Cached(node, now));
      return node;
    } catch (IOException e) {
      LOG.debug("cannot locate {} now: {}", key, e.toString());
      return null;
    }
  }

  @Override
  public void invalidate(Key key) {
    cache.remove(key);
    stale.put(key, Boolean.TRUE);
  }

  static NodeId nodeId(org.apache.hadoop.hbase.ServerName server) {
    return new NodeId(server.getServerName());
  }
}
