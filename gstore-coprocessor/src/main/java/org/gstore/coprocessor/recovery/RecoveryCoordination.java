package org.gstore.coprocessor.recovery;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

/**
 * What recovery learns and decides through HBase's ZooKeeper: which region servers are alive (HBase's own
 * ephemeral {@code <parent>/rs} znodes, whose loss is what makes HBase declare a server dead and reassign its
 * regions), and who recovers a dead server's log: an ephemeral lock znode {@code <parent>/gstore/recovery/<server>}
 * in the recovering server's session, so that if it dies mid-recovery the lock goes with it and another server
 * takes over.
 */
final class RecoveryCoordination {
  private final Supplier<ZooKeeper> session;
  private final String rsPath;
  private final String locksPath;
  private final List<ACL> acl;

  RecoveryCoordination(Supplier<ZooKeeper> session, String znodeParent, List<ACL> acl) {
    this.session = session;
    this.rsPath = znodeParent + "/rs";
    this.locksPath = znodeParent + "/gstore/recovery";
    this.acl = acl;
  }

  /** The region servers HBase currently counts as alive, by server name ({@code host,port,startcode}). */
  Set<String> liveServers() throws IOException {
    try {
      return new HashSet<>(zk().getChildren(rsPath, false));
    } catch (KeeperException e) {
      throw new IOException("cannot list the live region servers in ZooKeeper", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted listing live region servers");
    }
  }

  /** Takes the recovery lock of {@code deadServer}; false if another server holds it. */
  boolean tryLock(String deadServer) throws IOException {
    try {
      ensureParent();
      zk().create(lockPath(deadServer), new byte[0], acl, CreateMode.EPHEMERAL);
      return true;
    } catch (KeeperException.NodeExistsException e) {
      return false;
    } catch (KeeperException e) {
      throw new IOException("cannot take the recovery lock of " + deadServer, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted taking a recovery lock");
    }
  }

  void unlock(String deadServer) {
    try {
      zk().delete(lockPath(deadServer), -1);
    } catch (KeeperException | IOException | RuntimeException e) {
      // gone with an expired session, or it will go with ours: either way the lock is released
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private String lockPath(String server) {
    return locksPath + "/" + server;
  }

  private void ensureParent() throws KeeperException, InterruptedException, IOException {
    StringBuilder path = new StringBuilder();
    for (String part : locksPath.substring(1).split("/")) {
      path.append('/').append(part);
      try {
        zk().create(path.toString(), new byte[0], acl, CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException e) {
        // already there
      }
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
