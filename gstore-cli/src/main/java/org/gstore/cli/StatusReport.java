package org.gstore.cli;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ContentSummary;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.zookeeper.ZKConfig;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.recovery.ClaimStore;
import org.gstore.recovery.LogId;
import org.gstore.recovery.hbase.RecoveryZnodes;
import org.gstore.recovery.hbase.WalRecovery;

/**
 * {@code gstore status}: the region servers as recovery sees them, read from ZooKeeper and the WAL directory on
 * HDFS: alive or dead, each leader's T_F and T_P (the lowest claim of the live registered servers for its log),
 * its WAL files and bytes, dead servers' WALs waiting for, in, or done with their replay, and the alerts each live
 * server published (thresholds that stopped advancing; docs/operations.md, "Alerts").
 */
final class StatusReport {
  /** One region server (live, or dead with a WAL or thresholds left). */
  record Server(String name, String state, long shippedThrough, long persistedThrough, int walFiles, long walBytes,
      Set<String> alerts) {}

  private StatusReport() {}

  static List<Server> collect(Configuration conf) throws IOException {
    String parent = conf.get(HConstants.ZOOKEEPER_ZNODE_PARENT, HConstants.DEFAULT_ZOOKEEPER_ZNODE_PARENT);
    ZooKeeper zk = connect(conf);
    try {
      RecoveryZnodes znodes = new RecoveryZnodes(() -> zk, parent, ZooDefs.Ids.OPEN_ACL_UNSAFE);
      Set<String> live = znodes.liveServers();
      Map<String, ClaimStore.Flushed> flushed = znodes.flushed();
      Map<String, Set<String>> alerts = znodes.alerts();
      Map<String, Map<String, Long>> claims = znodes.claims();
      Set<String> replaying = znodes.recoveriesInProgress();
      Path root = GStoreConfig.walRoot(conf);
      FileSystem fs = root.getFileSystem(conf);
      Map<String, String> states = new TreeMap<>();
      Map<String, List<Path>> walDirs = new TreeMap<>();
      live.forEach(s -> states.put(s, "alive"));
      flushed.keySet().forEach(s -> states.putIfAbsent(s, "dead"));
      claims.keySet().forEach(s -> states.putIfAbsent(s, "dead"));
      if (fs.exists(root)) {
        for (FileStatus dir : fs.listStatus(root)) {
          String name = dir.getPath().getName();
          int recovered = name.indexOf(WalRecovery.RECOVERED);
          if (recovered > 0) {
            states.putIfAbsent(LogId.serverOf(name.substring(0, recovered)), "dead, WAL replayed");
          } else if (name.endsWith(WalRecovery.RECOVERING)) {
            String server = LogId.serverOf(name.substring(0, name.length() - WalRecovery.RECOVERING.length()));
            states.put(server, live.contains(server) ? "alive" : "dead, WAL being replayed");
            walDirs.computeIfAbsent(server, s -> new ArrayList<>()).add(dir.getPath());
          } else {
            String server = LogId.serverOf(name);
            states.putIfAbsent(server, "dead, WAL not replayed yet");
            walDirs.computeIfAbsent(server, s -> new ArrayList<>()).add(dir.getPath());
          }
        }
      }
      replaying.forEach(log -> states.put(LogId.serverOf(log), "dead, WAL being replayed"));
      List<Server> servers = new ArrayList<>();
      for (Map.Entry<String, String> e : states.entrySet()) {
        String server = e.getKey();
        ClaimStore.Flushed log = flushed.get(server);
        long persisted = Long.MAX_VALUE;
        for (Map.Entry<String, Map<String, Long>> claim : claims.entrySet()) {
          if (live.contains(claim.getKey())) {
            persisted = Math.min(persisted, log == null ? -1L : claim.getValue().getOrDefault(log.log(), -1L));
          }
        }
        int files = 0;
        long bytes = 0;
        for (Path dir : walDirs.getOrDefault(server, List.of())) {
          ContentSummary wal = fs.getContentSummary(dir);
          files += (int) wal.getFileCount();
          bytes += wal.getLength();
        }
        servers.add(new Server(server, e.getValue(), log == null ? -1L : log.shippedThrough(),
            persisted == Long.MAX_VALUE ? -1 : persisted, files, bytes,
            live.contains(server) ? alerts.getOrDefault(server, Set.of()) : Set.of()));
      }
      return servers;
    } finally {
      try {
        zk.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  static String render(List<Server> servers) {
    StringBuilder out = new StringBuilder(String.format("%-44s %-26s %10s %10s %9s %12s%n", "region server",
        "state", "T_F", "T_P", "WAL files", "WAL bytes"));
    for (Server s : servers) {
      out.append(String.format("%-44s %-26s %10s %10s %9d %12d%n", s.name(), s.state(), position(s.shippedThrough()),
          position(s.persistedThrough()), s.walFiles(), s.walBytes()));
    }
    out.append("T_F: the server's last shipment HBase acknowledged; T_P: the lowest claim of the live servers for"
        + " it (-: none yet). See docs/recovery.md.\n");
    for (Server s : servers) {
      if (!s.alerts().isEmpty()) {
        out.append("ALERT ").append(s.name()).append(": ").append(String.join(", ", new TreeSet<>(s.alerts())))
            .append(" (the server's log names the remedy; docs/operations.md, \"Alerts\")\n");
      }
    }
    return out.toString();
  }

  private static String position(long p) {
    return p < 0 ? "-" : Long.toString(p);
  }

  private static ZooKeeper connect(Configuration conf) throws IOException {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(ZKConfig.getZKQuorumServersString(conf), 30_000, event -> {
      if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    try {
      if (!connected.await(30, TimeUnit.SECONDS)) {
        zk.close();
        throw new IOException("could not connect to ZooKeeper at " + ZKConfig.getZKQuorumServersString(conf));
      }
      return zk;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted connecting to ZooKeeper");
    }
  }
}
