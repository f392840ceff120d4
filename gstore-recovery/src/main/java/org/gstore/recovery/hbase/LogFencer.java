package org.gstore.recovery.hbase;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * Step 1 of replaying a dead log ({@link WalRecovery}), run under the log's lock: renames its directory to
 * {@code <log>.recovering}, then takes every file over from its writer. A zombie of the server can then neither
 * finish a write (the lease and blocks are taken over) nor start a new file (its directory is gone), so it
 * acknowledges nothing that a replay of the files does not read.
 */
final class LogFencer {
  private final FileSystem fs;
  private final Path root;
  private final long attemptMillis;
  private final ReplayWriter.Pause pause;

  LogFencer(FileSystem fs, Path root, long attemptMillis, ReplayWriter.Pause pause) {
    this.fs = fs;
    this.root = root;
    this.attemptMillis = attemptMillis;
    this.pause = pause;
  }

  /** Fences {@code log}; returns its files, final, or null if another server finished replaying it meanwhile. */
  List<Path> fence(String log) throws IOException {
    Path original = new Path(root, log);
    Path fenced = new Path(root, log + WalRecovery.RECOVERING);
    if (fs.exists(original) && !fs.rename(original, fenced)) {
      throw new IOException("cannot fence the G-Store WAL of dead server " + log + " (rename to " + fenced + ")");
    }
    if (!fs.exists(fenced)) {
      return null; // another server finished it between our check and our lock
    }
    List<Path> files = WalFiles.files(fs, fenced);
    long deadline = System.currentTimeMillis() + attemptMillis; // one for the log: the lock is held meanwhile
    for (Path f : files) {
      recoverLease(f, deadline);
    }
    return files;
  }

  /** Takes the file over from its writer, as HBase does with a dead server's WAL; its length is then final. */
  private void recoverLease(Path file, long deadline) throws IOException {
    if (!(fs instanceof DistributedFileSystem dfs)) {
      return;
    }
    long wait = 100;
    while (!dfs.recoverLease(file) && !dfs.isFileClosed(file)) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("HDFS did not recover the lease of " + file + " within " + attemptMillis + " ms of"
            + " fencing its log");
      }
      pause.pause(wait);
      wait = Math.min(wait * 2, 1_000);
    }
  }
}
