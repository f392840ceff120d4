package org.gstore.recovery.hbase;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.gstore.recovery.ClaimStore;
import org.gstore.recovery.LogId;

/**
 * What recovery keeps in and reads from HBase's ZooKeeper:
 * <pre>
 *   &lt;parent&gt;/rs/&lt;server&gt;                    HBase's own: the live region servers (a server whose znode is gone
 *                                          is dead to HBase, which then reassigns its regions; so is one whose
 *                                          address a newer instance serves, see {@link LiveServers})
 *   &lt;parent&gt;/gstore/flushed/&lt;server&gt;        T_F of the server's shipper: "log=shipment", its last shipment HBase
 *                                          acknowledged and the {@link LogId} of the G-Store instance shipping
 *   &lt;parent&gt;/gstore/persisted/&lt;server&gt;      T_P claimed by the server: "log=shipment" lines, the T_F values
 *                                          it read before its last WAL sync; created empty when G-Store starts
 *                                          there, before it takes any write; kept after it dies, until its
 *                                          recovered WAL is deleted; deleted when G-Store stops there cleanly
 *   &lt;parent&gt;/gstore/recovery/&lt;server&gt;       ephemeral lock of whoever replays a dead server's WAL
 * </pre>
 * The session is the server's own (its peer registration), so the lock dies with the server.
 */
public final class RecoveryZnodes implements ClaimStore {
  private final Supplier<ZooKeeper> session;
  private final String rsPath;
  private final String flushedPath;
  private final String persistedPath;
  private final String locksPath;
  private final String alertsPath;
  private final List<ACL> acl;

  public RecoveryZnodes(Supplier<ZooKeeper> session, String znodeParent, List<ACL> acl) {
    this.session = session;
    this.rsPath = znodeParent + "/rs";
    this.flushedPath = znodeParent + "/gstore/flushed";
    this.persistedPath = znodeParent + "/gstore/persisted";
    this.locksPath = znodeParent + "/gstore/recovery";
    this.alertsPath = znodeParent + "/gstore/alerts";
    this.acl = acl;
  }

  @Override
  public Set<String> liveServers() throws IOException {
    return call(() -> LiveServers.of(zk().getChildren(rsPath, false)));
  }

  @Override
  public void register(String server) throws IOException {
    publishClaim(server, Map.of());
  }

  /**
   * Withdraws the server's claim, only while HBase still counts it live (its {@code rs} znode is there, checked in
   * the same ZooKeeper transaction): a withdrawn claim tells every leader that the server persisted all it was
   * shipped, which a server declared dead meanwhile cannot promise (its regions may have reopened elsewhere before
   * its own closes flushed them). Throws, keeping the claim, if the server is no longer live to HBase.
   */
  @Override
  public void unregister(String server) throws IOException {
    call(() -> {
      try {
        zk().multi(List.of(Op.check(rsPath + "/" + server, -1), Op.delete(persistedPath + "/" + server, -1)));
      } catch (KeeperException.NoNodeException e) {
        throw new IOException(server + " is not live to HBase any more (or has no claim): its claim stays, and"
            + " leaders count it dead", e);
      }
      return null;
    });
    delete(flushedPath + "/" + server);
    delete(alertsPath + "/" + server);
  }

  @Override
  public void publishFlushed(String server, Flushed flushed) throws IOException {
    put(flushedPath + "/" + server, flushed.log() + "=" + flushed.shippedThrough());
  }

  @Override
  public Map<String, Flushed> flushed() throws IOException {
    Map<String, Flushed> flushed = new HashMap<>();
    readAll(flushedPath).forEach((server, text) -> {
      String line = text.trim();
      int eq = line.lastIndexOf('=');
      flushed.put(server, eq < 0 ? new Flushed(server, parseLong(line)) // written before logs had instances
          : new Flushed(line.substring(0, eq), parseLong(line.substring(eq + 1))));
    });
    return flushed;
  }

  @Override
  public void publishClaim(String server, Map<String, Long> claim) throws IOException {
    StringBuilder text = new StringBuilder();
    claim.forEach((log, through) -> text.append(log).append('=').append(through).append('\n'));
    put(persistedPath + "/" + server, text.toString());
  }

  @Override
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

  /**
   * Forgets a server that stopped cleanly, or a dead one whose WAL was replayed long ago: its thresholds no longer
   * hold anything back, and its alerts are over.
   */
  public void forget(String server) throws IOException {
    delete(flushedPath + "/" + server);
    delete(persistedPath + "/" + server);
    delete(alertsPath + "/" + server);
  }

  /** Publishes the alerts active on {@code server} (none: empty), for {@code gstore status} (see ThresholdAlerts). */
  public void publishAlerts(String server, Set<String> alerts) throws IOException {
    put(alertsPath + "/" + server, String.join(",", new TreeSet<>(alerts)));
  }

  /** The alerts each server published last: server to its active alerts (servers with none left out). */
  public Map<String, Set<String>> alerts() throws IOException {
    Map<String, Set<String>> alerts = new HashMap<>();
    readAll(alertsPath).forEach((server, text) -> {
      if (!text.isBlank()) {
        alerts.put(server, Set.of(text.trim().split(",")));
      }
    });
    return alerts;
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

  /**
   * Whether this session still holds the recovery lock of {@code deadServer} (it lapses with an expired session,
   * and another server may then take it): checked before a replay's writes that another replayer must not repeat.
   */
  boolean holdsLock(String deadServer) throws IOException {
    return call(() -> {
      org.apache.zookeeper.data.Stat stat = zk().exists(locksPath + "/" + deadServer, false);
      return stat != null && stat.getEphemeralOwner() == zk().getSessionId();
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

  /**
   * What to do when ZooKeeper refuses this server one of G-Store's znodes: on a secure ZooKeeper every region
   * server must authenticate as the one id that created them.
   */
  public static String refusedMessage(String path) {
    return "ZooKeeper refused this region server access to G-Store's znode " + path + ": on a secure ZooKeeper"
        + " every region server must authenticate as the same id, the one that created G-Store's znodes (run the"
        + " ZooKeeper servers with kerberos.removeHostFromPrincipal=true and kerberos.removeRealmFromPrincipal=true,"
        + " as HBase asks, so that hbase/<host>@REALM is 'hbase' on every host); a SASL login that failed has the"
        + " same effect (docs/operations.md, \"Secure clusters\")";
  }

  private interface ZkCall<T> {
    T run() throws KeeperException, InterruptedException, IOException;
  }

  private static <T> T call(ZkCall<T> call) throws IOException {
    try {
      return call.run();
    } catch (KeeperException.NoAuthException e) {
      throw new IOException(refusedMessage(e.getPath()), e);
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
