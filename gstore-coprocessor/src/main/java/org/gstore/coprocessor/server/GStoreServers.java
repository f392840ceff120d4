package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;

/**
 * The G-Store instance of each region server in this JVM (a mini cluster runs several), shared by the region
 * server's G-Store regions: the first region to open starts it, the last to close stops it.
 */
public final class GStoreServers {
  private static final Map<ServerName, GStoreServer> SERVERS = new ConcurrentHashMap<>();
  /** How many regions hold each instance; guarded by the class. */
  private static final Map<GStoreServer, Integer> REFERENCES = new HashMap<>();

  private GStoreServers() {}

  /** G-Store on the environment's region server, started by its first G-Store region. */
  public static synchronized GStoreServer acquire(RegionCoprocessorEnvironment env) throws IOException {
    GStoreServer server = SERVERS.get(env.getServerName());
    if (server == null) {
      server = GStoreServer.start(env);
      SERVERS.put(env.getServerName(), server);
    }
    REFERENCES.merge(server, 1, Integer::sum);
    return server;
  }

  /** Called by each region's coprocessor when it stops; the last one stops G-Store on its region server. */
  public static synchronized void release(GStoreServer server) {
    if (REFERENCES.merge(server, -1, Integer::sum) == 0) {
      REFERENCES.remove(server);
      SERVERS.remove(server.serverName(), server);
      server.close();
    }
  }

  /**
   * Runs {@code action} unless G-Store started again on region server {@code name} meanwhile, with no new instance
   * starting while it runs: a stopped instance's late unregistering must not withdraw its successor's claims, which
   * ZooKeeper keys by server.
   */
  static synchronized void unlessRestarted(ServerName name, Runnable action) {
    if (!SERVERS.containsKey(name)) {
      action.run();
    }
  }

  /** For tests and tools: G-Store on region server {@code name} in this JVM, or null if it does not run there. */
  public static GStoreServer on(ServerName name) {
    return SERVERS.get(name);
  }

  /**
   * For tests: stops G-Store on region server {@code name} dead, as {@code kill -9} would: no drain, no shipping, no
   * datagrams, no further state writes; WAL files are left as they are (not even closed), and the peer's znode goes.
   * The region server itself is left to the caller to kill. Nothing happens if G-Store does not run there.
   */
  public static synchronized void crash(ServerName name) {
    GStoreServer server = SERVERS.get(name);
    if (server != null) {
      server.crash();
    }
  }
}
