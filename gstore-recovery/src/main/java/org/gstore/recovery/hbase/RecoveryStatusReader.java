package org.gstore.recovery.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.fs.ContentSummary;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.recovery.ClaimStore;
import org.gstore.recovery.LogId;

/**
 * The region servers as recovery sees them, read from ZooKeeper and the WAL directory: alive or dead, each
 * leader's T_F and T_P (the lowest claim of the live registered servers for its log), its WAL files and bytes,
 * dead servers' WALs waiting for, in, or done with their replay, and the alerts each live server published.
 * Read by a region server for {@code GStoreAdmin.recoveryStatus()} (it has the ZooKeeper session and the file
 * system at hand).
 */
public final class RecoveryStatusReader {
  /** One region server (live, or dead with a WAL or thresholds left); -1: no threshold yet. */
  public record ServerStatus(String name, String state, long shippedThrough, long persistedThrough, int walFiles,
      long walBytes, Set<String> alerts) {}

  private RecoveryStatusReader() {}

  public static List<ServerStatus> read(RecoveryZnodes znodes, FileSystem fs, Path walRoot) throws IOException {
    Set<String> live = znodes.liveServers();
    Map<String, ClaimStore.Flushed> flushed = znodes.flushed();
    Map<String, Set<String>> alerts = znodes.alerts();
    Map<String, Map<String, Long>> claims = znodes.claims();
    Map<String, String> states = new TreeMap<>();
    Map<String, List<Path>> walDirs = new TreeMap<>();
    live.forEach(s -> states.put(s, "alive"));
    flushed.keySet().forEach(s -> states.putIfAbsent(s, "dead"));
    claims.keySet().forEach(s -> states.putIfAbsent(s, "dead"));
    if (fs.exists(walRoot)) {
      for (FileStatus dir : fs.listStatus(walRoot)) {
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
    znodes.recoveriesInProgress().forEach(log -> states.put(LogId.serverOf(log), "dead, WAL being replayed"));
    List<ServerStatus> servers = new ArrayList<>();
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
      servers.add(new ServerStatus(server, e.getValue(), log == null ? -1L : log.shippedThrough(),
          persisted == Long.MAX_VALUE ? -1 : persisted, files, bytes,
          live.contains(server) ? alerts.getOrDefault(server, Set.of()) : Set.of()));
    }
    return servers;
  }
}
