package org.gstore.coprocessor.transport;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.zookeeper.ZKAuthentication;
import org.apache.hadoop.hbase.zookeeper.ZKConfig;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.gstore.common.protocol.NodeId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where each region server's G-Store peer listens: an ephemeral znode {@code <parent>/gstore/peers/<node id>}
 * holding {@code host:port}, in HBase's own ZooKeeper. Addresses are cached with a watch and forgotten when their
 * znode changes or goes: a peer restarts on another port when its region server closes its last G-Store region and
 * later opens one again, and a dead server's znode goes with its session. Our znode is recreated if the session
 * expires.
 */
public final class PeerRegistry implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(PeerRegistry.class);
  /** The ZooKeeper quorums this JVM warned about already ({@link #warnIfUnauthenticated}). */
  private static final Set<String> UNAUTHENTICATED_WARNED = ConcurrentHashMap.newKeySet();
  private static final int SESSION_TIMEOUT_MS = 30_000;

  private final Configuration conf;
  private final String quorum;
  private final String peersPath;
  private final List<ACL> acl;
  /** ZooKeeper authenticates callers (SASL): G-Store's session must authenticate before it writes a znode. */
  private final boolean secure;
  private final Map<NodeId, InetSocketAddress> addresses = new ConcurrentHashMap<>();
  private volatile ZooKeeper zk;
  private volatile boolean closed;
  /** Publishes this peer again after a session expiry, off ZooKeeper's event thread. */
  private final ExecutorService reconnecting = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "gstore-peer-registry");
    t.setDaemon(true);
    return t;
  });
  private NodeId self;
  private String selfAddress;

  public PeerRegistry(Configuration conf) {
    this.conf = conf;
    this.quorum = ZKConfig.getZKQuorumServersString(conf);
    String parent = conf.get(HConstants.ZOOKEEPER_ZNODE_PARENT, HConstants.DEFAULT_ZOOKEEPER_ZNODE_PARENT);
    this.peersPath = parent + "/gstore/peers";
    this.secure = ZKAuthentication.isSecureZooKeeper(conf);
    // read as HBase reads it for its own ACLs (split on commas, not trimmed): the same users, no more
    this.acl = acl(secure, conf.getStrings(org.apache.hadoop.hbase.security.Superusers.SUPERUSER_CONF_KEY,
        new String[0]));
  }

  /**
   * With secure ZooKeeper, only the identity that created a znode (the region servers' principal: they must all
   * authenticate as one id) and HBase's superusers may change or delete it, as for HBase's own znodes; anyone may
   * read it ({@code gstore status} reads thresholds and alerts as the operator). Without ZooKeeper authentication
   * no ACL can tell users apart.
   */
  static List<ACL> acl(boolean secureZooKeeper, String... superusers) {
    if (!secureZooKeeper) {
      return ZooDefs.Ids.OPEN_ACL_UNSAFE;
    }
    List<ACL> acl = new ArrayList<>(ZooDefs.Ids.CREATOR_ALL_ACL);
    for (String superuser : superusers) {
      if (!superuser.isEmpty() && !superuser.startsWith("@")) { // a group has no ZooKeeper id
        acl.add(new ACL(ZooDefs.Perms.ALL, new org.apache.zookeeper.data.Id("sasl", superuser)));
      }
    }
    acl.addAll(ZooDefs.Ids.READ_ACL_UNSAFE);
    return acl;
  }

  /** Publishes this server's datagram address. */
  public synchronized void register(NodeId node, InetSocketAddress address) throws IOException {
    this.self = node;
    this.selfAddress = address.getHostString() + ":" + address.getPort();
    addresses.put(node, address);
    connectAndPublish();
  }

  private synchronized void connectAndPublish() throws IOException {
    org.apache.zookeeper.client.ZKClientConfig clientConfig = ZKConfig.getZKClientConfig(conf);
    // on a secure ZooKeeper the session is usable once SASL is done, which comes after SyncConnected
    Watcher.Event.KeeperState usable = secure && clientConfig.isSaslClientEnabled()
        ? Watcher.Event.KeeperState.SaslAuthenticated : Watcher.Event.KeeperState.SyncConnected;
    CountDownLatch ready = new CountDownLatch(1);
    AtomicBoolean authFailed = new AtomicBoolean();
    AtomicBoolean live = new AtomicBoolean();
    // HBase's own ZooKeeper client settings (SASL login section, TLS), as its own sessions use them
    ZooKeeper client = new ZooKeeper(quorum, SESSION_TIMEOUT_MS, event -> {
      Watcher.Event.KeeperState state = event.getState();
      if (state == usable) {
        ready.countDown();
      } else if (state == Watcher.Event.KeeperState.AuthFailed) {
        authFailed.set(true);
        ready.countDown();
        if (live.get() && !closed) {
          // a session that fails SASL on a reconnect sends no Expired: it is dead all the same
          LOG.error("G-Store's ZooKeeper session failed to authenticate again (SASL); publishing {} again", self);
          reconnecting.execute(this::reconnectUntilPublished);
        }
      } else if (state == Watcher.Event.KeeperState.Expired && !closed) {
        LOG.warn("G-Store peer registry session expired; publishing {} again", self);
        reconnecting.execute(this::reconnectUntilPublished);
      }
    }, clientConfig);
    boolean published = false;
    try {
      if (!ready.await(SESSION_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
        throw new IOException("could not connect to ZooKeeper at " + quorum
            + (usable == Watcher.Event.KeeperState.SaslAuthenticated ? " and authenticate (SASL)" : ""));
      }
      if (authFailed.get()) {
        throw new IOException(authFailedMessage());
      }
      createParents(client);
      String path = peersPath + "/" + self.value();
      try {
        client.delete(path, -1); // a leftover of an expired session of ours
      } catch (KeeperException.NoNodeException e) {
        // normal
      }
      client.create(path, selfAddress.getBytes(StandardCharsets.UTF_8), acl, CreateMode.EPHEMERAL);
      ZooKeeper old = zk;
      zk = client;
      published = true;
      live.set(true);
      addresses.keySet().removeIf(n -> !n.equals(self)); // the old session's watches are gone
      if (old != null) {
        old.close();
      }
    } catch (KeeperException.AuthFailedException e) {
      throw new IOException(authFailedMessage(), e);
    } catch (KeeperException.NoAuthException | KeeperException.InvalidACLException e) {
      throw new IOException(org.gstore.recovery.hbase.RecoveryZnodes.refusedMessage(e.getPath()), e);
    } catch (KeeperException e) {
      throw new IOException("could not publish the G-Store peer address in ZooKeeper", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted publishing the G-Store peer address");
    } finally {
      if (!published) {
        closeQuietly(client);
      }
    }
  }

  /**
   * After a session expiry: publishes this peer again, retrying with backoff until it succeeds or the registry
   * closes. Without it, peers could not reach this server, and recovery (whose locks and reads use this session)
   * would fail at every heartbeat until the region server restarts.
   */
  private void reconnectUntilPublished() {
    long backoff = 100;
    while (!closed) {
      try {
        connectAndPublish();
        LOG.info("G-Store peer {} published again after its ZooKeeper session expired", self);
        return;
      } catch (IOException e) {
        LOG.error("G-Store could not publish its peer address again; retrying in {} ms", backoff, e);
      }
      try {
        TimeUnit.MILLISECONDS.sleep(backoff);
      } catch (InterruptedException e) {
        return; // closing
      }
      backoff = Math.min(backoff * 2, 10_000);
    }
  }

  private static void closeQuietly(ZooKeeper client) {
    try {
      client.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private String authFailedMessage() {
    return "G-Store could not authenticate to ZooKeeper at " + quorum + " (SASL): check the region server's JAAS"
        + " login section (zookeeper.sasl.clientconfig, 'Client' by default), its keytab and principal, and the"
        + " ZooKeeper servers' principal (zookeeper.server.principal); G-Store does not start without it"
        + " (docs/operations.md, \"Secure clusters\")";
  }

  private void createParents(ZooKeeper client) throws KeeperException, InterruptedException {
    StringBuilder path = new StringBuilder();
    for (String part : peersPath.substring(1).split("/")) {
      path.append('/').append(part);
      try {
        client.create(path.toString(), new byte[0], acl, CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException e) {
        // already there
      }
    }
  }

  /**
   * This server's ZooKeeper session (the one holding its peer znode), for other coordination of this server that
   * should end with it, such as recovery locks. Replaced when the session expires: do not keep it.
   */
  public ZooKeeper session() {
    return zk;
  }

  /** The ACL G-Store gives its znodes (HBase's choice; see {@link #acl(boolean)}). */
  public List<ACL> acl() {
    return acl;
  }

  /**
   * Logs a warning if the znodes are open to anyone: a ZooKeeper without authentication. Once per quorum and JVM:
   * the servers of an embedded cluster share one, and the warning is about the ZooKeeper, not about a server.
   * Returns whether it warned.
   */
  public boolean warnIfUnauthenticated() {
    boolean warn = acl.equals(ZooDefs.Ids.OPEN_ACL_UNSAFE) && UNAUTHENTICATED_WARNED.add(quorum);
    if (warn) {
      LOG.warn("G-Store runs on a ZooKeeper without authentication: whoever reaches it can rewrite G-Store's"
          + " persistence claims (gstore/persisted) and make leaders forget commits that are not persisted."
          + " Run HBase with secure ZooKeeper in production (docs/operations.md, \"Limits and security\")");
    }
    return warn;
  }

  /** The datagram address of a peer, or null if it has none (not running G-Store, or gone). */
  public InetSocketAddress addressOf(NodeId node) {
    InetSocketAddress cached = addresses.get(node);
    if (cached != null) {
      return cached;
    }
    try {
      byte[] data = zk.getData(peersPath + "/" + node.value(), event -> {
        if (event.getType() != Watcher.Event.EventType.None) {
          addresses.remove(node); // changed or deleted: look it up again next time
        }
      }, null);
      InetSocketAddress address = parse(new String(data, StandardCharsets.UTF_8));
      if (address == null) {
        LOG.warn("G-Store peer {} publishes an unusable address; treating it as unreachable", node);
        return null;
      }
      addresses.put(node, address);
      return address;
    } catch (KeeperException.NoNodeException e) {
      return null;
    } catch (KeeperException e) {
      LOG.warn("could not look up G-Store peer {}", node, e);
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** {@code host:port}, or null if {@code hostPort} is not one. */
  static InetSocketAddress parse(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      return null;
    }
    try {
      int port = Integer.parseInt(hostPort.substring(colon + 1));
      if (port < 1 || port > 65_535) {
        return null;
      }
      InetSocketAddress address = new InetSocketAddress(hostPort.substring(0, colon), port);
      return address.isUnresolved() ? null : address;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * Publishes this peer no more (not after a session expiry either: a next instance on this server may have
   * published itself since), keeping the session for what still needs it until {@link #close}.
   */
  public void retire() {
    closed = true;
    reconnecting.shutdownNow();
  }

  @Override
  public void close() {
    retire();
    closeSession();
  }

  private synchronized void closeSession() {
    if (zk != null) {
      try {
        zk.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
