package org.gstore.recovery.hbase;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.ProtocolRecordCodec;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.recovery.ReplayFilter;

/**
 * Which rows a fenced dead log concerns, so that a region whose rows it does not concern opens while the log waits
 * for its replay: the leaders of the groups it holds commits of that a replay must still write (none of a group
 * whose commits its persisted marks cover, in the log or kept by an earlier attempt: {@link ReplayedGroups}), and
 * the rows (and group leaders) its protocol records name. Known only once the log is fenced (renamed, so nothing can be added to it) with every file closed
 * and readable to its end; read once per log, since such a log does not change.
 */
final class FencedLogs {
  /** The rows one fenced log concerns. */
  private record Concerns(Set<Key> commitLeaders, Set<Key> protocolKeys) {}

  private final FileSystem fs;
  private final Path root;
  private final Map<String, Concerns> known = new ConcurrentHashMap<>();

  FencedLogs(FileSystem fs, Path root) {
    this.fs = fs;
    this.root = root;
  }

  /** Whether {@code log} surely holds no commit of a group led from {@code leadsHere}; unknown means no. */
  boolean holdsNoCommitsOf(String log, Predicate<Key> leadsHere) {
    Concerns c = concerns(log);
    return c != null && c.commitLeaders().stream().noneMatch(leadsHere);
  }

  /** Whether {@code log} surely holds no protocol state of {@code keys} or groups they lead; unknown means no. */
  boolean holdsNoProtocolStateOf(String log, Predicate<Key> keys) {
    Concerns c = concerns(log);
    return c != null && c.protocolKeys().stream().noneMatch(keys);
  }

  /** Forgets what a log concerns: it was replayed, or an attempt kept marks of groups it replayed. */
  void forget(String log) {
    known.remove(log);
  }

  private Concerns concerns(String log) {
    Concerns c = known.get(log);
    if (c == null) {
      c = read(log);
      if (c != null) {
        known.put(log, c);
      }
    }
    return c;
  }

  /** What the fenced log concerns, or null if that cannot be known yet. */
  private Concerns read(String log) {
    try {
      Path fenced = new Path(root, log + WalRecovery.RECOVERING);
      if (!fs.exists(fenced) || !(fs instanceof DistributedFileSystem dfs)) {
        return null;
      }
      List<Path> files = WalFiles.files(fs, fenced);
      for (Path f : files) {
        if (!dfs.isFileClosed(f) || WalFiles.read(fs, f).corrupt()) {
          return null;
        }
      }
      ReplayFilter filter = LogReplay.filter(fs, fenced, files);
      // an instance that stopped cleanly had every commit in HBase: a replay writes none (see WalRecovery#replay)
      boolean closedCleanly = fs.exists(new Path(fenced, WalFiles.CLOSED_CLEANLY));
      Set<Key> leaders = new HashSet<>();
      Set<Key> protocol = new HashSet<>();
      long index = 0;
      for (Path f : files) {
        for (WalRecordProto r : WalFiles.readForReplay(fs, f)) {
          long at = index++;
          if (filter.replays(at, r) && !closedCleanly) {
            leaders.add(DatagramCodec.fromProto(r.getGroup()).id().leader());
          } else if (r.hasProtocol() && ProtocolRecordCodec.checkpointedThrough(r) == 0) {
            for (LoggedChange change : ProtocolRecordCodec.decode(r).changes()) {
              if (change.target() instanceof GroupId g) {
                protocol.add(g.leader());
              } else if (change.target() instanceof Key k) {
                protocol.add(k);
              }
            }
          }
        }
      }
      return new Concerns(leaders, protocol);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
