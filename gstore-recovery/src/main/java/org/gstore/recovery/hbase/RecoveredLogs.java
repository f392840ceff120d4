package org.gstore.recovery.hbase;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.recovery.LogId;

/**
 * The names of the WAL root's directories, and the retention of the recovered ones: a log replayed to its end is
 * renamed {@code <log>.recovered-<time>} and kept for the retention, for operators and audits, then deleted with its
 * dead server's thresholds.
 */
final class RecoveredLogs {
  private final FileSystem fs;
  private final Path root;
  private final RecoveryZnodes coordination;
  private final long retainMillis;

  RecoveredLogs(FileSystem fs, Path root, RecoveryZnodes coordination, long retainMillis) {
    this.fs = fs;
    this.root = root;
    this.coordination = coordination;
    this.retainMillis = retainMillis;
  }

  /** The log a WAL directory holds, whether it is being written, fenced or replayed. */
  static String logOf(String dirName) {
    int recovered = dirName.indexOf(WalRecovery.RECOVERED);
    if (recovered >= 0) {
      return dirName.substring(0, recovered);
    }
    return dirName.endsWith(WalRecovery.RECOVERING)
        ? dirName.substring(0, dirName.length() - WalRecovery.RECOVERING.length()) : dirName;
  }

  /**
   * Deletes recovered logs older than the retention, with their dead server's thresholds (never a live server's:
   * an earlier instance's log is recovered while the server runs on).
   */
  synchronized void forgetOld(Set<String> live) throws IOException {
    long now = System.currentTimeMillis();
    Set<String> deletedFrom = new HashSet<>();
    for (FileStatus dir : fs.listStatus(root)) {
      String name = dir.getPath().getName();
      int at = name.indexOf(WalRecovery.RECOVERED);
      if (at >= 0 && now - parseTime(name.substring(at + WalRecovery.RECOVERED.length())) > retainMillis) {
        deletedFrom.add(LogId.serverOf(name.substring(0, at)));
        fs.delete(dir.getPath(), true);
      }
    }
    for (FileStatus dir : fs.listStatus(root)) {
      deletedFrom.remove(LogId.serverOf(logOf(dir.getPath().getName())));
    }
    for (String server : deletedFrom) {
      if (!live.contains(server)) { // dead, and its every log long replayed: its thresholds hold nothing back
        coordination.forget(server);
      }
    }
  }

  private static long parseTime(String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return 0; // not ours to keep
    }
  }
}
