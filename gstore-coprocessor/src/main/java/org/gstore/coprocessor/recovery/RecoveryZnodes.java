package org.gstore.coprocessor.recovery;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

/**
 * What recovery keeps in and reads from HBase's ZooKeeper:
 * <pre>
 *   &lt;parent&gt;/rs/&lt;server&gt;                    HBase's own: the live region servers (a server whose znode is gone
 *                                          is dead to HBase, which then reassigns its regions)
 *   &lt;parent&gt;/gstore/flushed/&lt;server&gt;        T_F of the server's shipper: its last shipment HBase acknowledged
 *   &lt;parent&gt;/gstore/persisted/&lt;server&gt;      T_P claimed by the server: "leader=shipment" lines, the T_F values
 *                                          it read before its last WAL sync; created empty when G-Store starts
 *                                          there, before it takes any write; kept after it dies, until its
 *                                          recovered WAL is deleted
 *   &lt;parent&gt;/gstore/recovery/&lt;server&gt;       ephemeral lock of whoever replays a dead server's WAL
 * </pre>
 * The session is the server's own (its peer registration), so the lock dies with the server.
 */
public final class RecoveryZnodes {
  private final Supplier<ZooKeeper> session;
  private final String rsPath;
  private final String flushedPath;
  private final String persistedPath;
  private final String locksPath;
  private final List<ACL> acl;

  public RecoveryZnodes(Supplier<ZooKeeper> session, String znodeParent, List<ACL> acl) {
    this.session = session;
    this.rsPath = znodeParent + "/rs";
    this.flushedPath = znodeParent + "/gstore/flushed";
    this.persistedPath = znodeParent + "/gstore/persisted";
    this.locksPath = znodeParent + "/gstore/recovery";
    this.acl = acl;
  }

  /** The region servers HBase currently counts as alive, by server name ({@code host,port,startcode}). */
  public Set<String> liveServers() throws IOException {
    return call(() -> new HashSet<>(zk().getChildren(rsPath, false)));
  }

  /** Registers {@code server} as one whose claim counts, claiming nothing yet. */
  public void register(String server) throws IOException {
    publishClaim(server, Map.of());
  }

  public void publishFlushed(String server, long shippedThrough) throws IOException {
    put(flushedPath + "/" + server, Long.toString(shippedThrough));
  }

  /** T_F of every server that published one. */
  public Map<String, Long> flushed() throws IOException {
    Map<String, Long> flushed = new HashMap<>();
    readAll(flushedPath).forEach((server, text) -> flushed.put(server, parseLong(text.trim())));
    return flushed;
  }

  public void publishClaim(String server, Map<String, Long> claim) throws IOException {
    StringBuilder text = new StringBuilder();
    claim.forEach((leader, through) -> text.append(leader).append('=').append(through).append('\n'));
    put(persistedPath + "/" + server, text.toString());
  }

  /** The T_P claim of every registered server, live or dead. */
  public Map<String, Map<String, Long>> claims() throws IOException {
    Map<String, Map<String, Long>> claims = new HashMap<>();
    readAll(persistedPath).forEach((server, text) -> {
      Map<String, Long> claim = new HashMap<>();
      for (String line : text.split("\n")) {
        int eq = line.lastIndexOf('=');
        if (eq > 0) {
          claim.put(line.substring(0, eq), parseLong(line.substring(eq + 1)));
        }
      }
      claims.put(server, claim);
    });
    return claims;
  }

  /** Forgets a dead server whose WAL was replayed long ago: its thresholds no longer hold anything back. */
  public void forget(String server) throws IOException {
    delete(flushedPath + "/" + server);
    delete(persistedPath + "/" + server);
  }

  /** Dead servers whose WAL some server is replaying now (it holds their recovery lock). */
  public Set<String> recoveriesInProgress() throws IOException {
    return readAll(locksPath).keySet();
  }

  /** Takes the recovery lock of {@code deadServer}; false if another server holds it. */
  boolean tryLock(String deadServer) throws IOException {
    return call(() -> {
      ensurePath(locksPath);
      try {
        zk().create(locksPath + "/" + deadServer, new byte[0], acl, CreateMode.EPHEMERAL);
        return true;
      } catch (KeeperException.NodeExistsException e) {
        return false;
      }
    });
  }

  void unlock(String deadServer) {
    try {
      delete(locksPath + "/" + deadServer);
    } catch (IOException | RuntimeException e) {
      // gone with an expired session, or it will go with ours: either way the lock is released
    }
  }

  private static long parseLong(String s) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      return -1; // unreadable: counts as nothing persisted, which holds everything back (safe)
    }
  }

  private void put(String path, String text) throws IOException {
    byte[] data = text.getBytes(StandardCharsets.UTF_8);
    call(() -> {
      try {
        zk().setData(path, data, -1);
      } catch (KeeperException.NoNodeException e) {
        ensurePath(path.substring(0, path.lastIndexOf('/')));
        try {
          zk().create(path, data, acl, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException raced) {
          zk().setData(path, data, -1);
        }
      }
      return null;
    });
  }

  private Map<String, String> readAll(String dir) throws IOException {
    return call(() -> {
      Map<String, String> all = new HashMap<>();
      List<String> children;
      try {
        children = zk().getChildren(dir, false);
      } catch (KeeperException.NoNodeException e) {
        return all;
      }
      for (String child : children) {
        try {
          all.put(child, new String(zk().getData(dir + "/" + child, false, null), StandardCharsets.UTF_8));
        } catch (KeeperException.NoNodeException e) {
          // deleted meanwhile
        }
      }
      return all;
    });
  }

  private void delete(String path) throws IOException {
    call(() -> {
      try {
        zk().delete(path, -1);
      } catch (KeeperException.NoNodeException e) {
        // already gone
      }
      return null;
    });
  }

  private void ensurePath(String path) throws KeeperException, InterruptedException, IOException {
    StringBuilder p = new StringBuilder();
    for (String part : path.substring(1).split("/")) {
      p.append('/').append(part);
      try {
        zk().create(p.toString(), new byte[0], acl, CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException e) {
        // already there
      }
    }
  }

  private interface ZkCall<T> {
    T run() throws KeeperException, InterruptedException, IOException;
  }

  private static <T> T call(ZkCall<T> call) throws IOException {
    try {
      return call.run();
    } catch (KeeperException e) {
      throw new IOException("G-Store recovery could not use ZooKeeper: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted using ZooKeeper");
    }
  }

  private ZooKeeper zk() throws IOException {
    ZooKeeper zk = session.get();
    if (zk == null) {
      throw new IOException("G-Store has no ZooKeeper session yet");
    }
    return zk;
  }
}
