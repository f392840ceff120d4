package org.gstore.coprocessor.wal;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntToLongFunction;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.common.protocol.GroupRef;
import org.gstore.recovery.WalPosition;
import org.gstore.recovery.hbase.WalFiles;

/**
 * The write-ahead log of every group this region server leads, on HDFS: {@code gstore.wal.streams} independent
 * streams, so that one writer thread is not the bottleneck. A group always writes to the same stream, which keeps
 * its commits in order in one place for replay.
 */
public final class SharedWal implements CommitLog, Closeable {
  private final FileSystem fs;
  private final Path root;
  private final WalStream[] streams;

  public SharedWal(FileSystem fs, Path root, int streams, long rollBytes, boolean hsync, WalMetrics metrics)
      throws IOException {
    this.fs = fs;
    this.root = root;
    this.streams = new WalStream[streams];
    for (int i = 0; i < streams; i++) {
      this.streams[i] = new WalStream(fs, new Path(root, "stream-" + i), rollBytes, hsync, metrics);
    }
  }

  int streamOf(GroupRef group) {
    return Math.floorMod(group.hashCode(), streams.length);
  }

  /** Completes once the record is durable. */
  @Override
  public CompletableFuture<WalPosition> append(GroupRef group, byte[] record) {
    int stream = streamOf(group);
    return streams[stream].append(record).thenApply(seq -> new WalPosition(stream, seq));
  }

  /**
   * Deletes files no replay needs: each stream keeps every record above {@code neededAbove.applyAsLong(stream)}
   * and, whatever their records, files closed less than {@code retainMillis} ago. Returns the files deleted.
   */
  public int truncate(IntToLongFunction neededAbove, long retainMillis) throws IOException {
    int deleted = 0;
    for (int i = 0; i < streams.length; i++) {
      deleted += streams[i].truncate(neededAbove.applyAsLong(i), retainMillis);
    }
    return deleted;
  }

  /** Files of the log on HDFS, over all streams. */
  public int fileCount() {
    int files = 0;
    for (WalStream s : streams) {
      files += s.fileCount();
    }
    return files;
  }

  public int streams() {
    return streams.length;
  }

  /** Stops writing as a crash would: appends in progress fail, files are left as they are (not closed). */
  public void abandon() {
    for (WalStream s : streams) {
      s.abandon();
    }
  }

  @Override
  public void close() {
    for (WalStream s : streams) {
      s.close();
    }
  }

  /**
   * Closes the log and marks it {@link WalFiles#CLOSED_CLEANLY}: the caller knows every commit in it is persisted in HBase
   * (or never acknowledged).
   */
  public void closeCleanly() throws IOException {
    close();
    fs.create(new Path(root, WalFiles.CLOSED_CLEANLY), false).close();
  }
}
