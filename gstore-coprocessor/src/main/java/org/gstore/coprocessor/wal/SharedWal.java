package org.gstore.coprocessor.wal;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
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
  private final Consumer<WalStoppedException> onStopped;
  private final WalMetrics metrics;

  /**
   * @param failureStopMillis how long a stream may keep failing before it gives up ({@link WalStream})
   * @param onStopped told when an append fails for good: a recovery fenced the log (this server is dead to HBase),
   *     or a stream kept failing; the server must stop (its commits cannot become durable any more)
   */
  public SharedWal(FileSystem fs, Path root, int streams, long rollBytes, boolean hsync, long failureStopMillis,
      WalMetrics metrics, Consumer<WalStoppedException> onStopped) throws IOException {
    this.fs = fs;
    this.metrics = metrics;
    this.onStopped = onStopped;
    this.root = root;
    this.streams = new WalStream[streams];
    for (int i = 0; i < streams; i++) {
      this.streams[i] = new WalStream(fs, new Path(root, "stream-" + i), rollBytes, hsync, failureStopMillis,
          metrics);
    }
    Path seals = new Path(root, WalFiles.SEALS_FAILED_WRITES); // a reader may take a torn file for corruption
    if (!fs.exists(seals)) {
      fs.create(seals, false).close();
    }
  }

  int streamOf(GroupRef group) {
    return Math.floorMod(group.hashCode(), streams.length);
  }

  /** Completes once the record is durable. */
  @Override
  public CompletableFuture<WalPosition> append(GroupRef group, byte[] record) {
    return append(streamOf(group), record);
  }

  /**
   * Appends a protocol record ({@code ProtocolRecordCodec}); completes once it is durable. Records go round the
   * streams by {@code sequence}, sharing each stream's syncs with its commits: a recovery replays them whatever
   * their order, since their versions order them.
   */
  public CompletableFuture<WalPosition> appendProtocol(long sequence, byte[] record) {
    return append((int) Math.floorMod(sequence, (long) streams.length), record);
  }

  private CompletableFuture<WalPosition> append(int stream, byte[] record) {
    return streams[stream].append(record).whenComplete((seq, e) -> {
      if (e instanceof WalStoppedException stopped) {
        onStopped.accept(stopped);
      } else if (e != null && e.getCause() instanceof WalStoppedException stopped) {
        onStopped.accept(stopped);
      }
    }).thenApply(seq -> new WalPosition(stream, seq));
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

  /**
   * Proves that no recovery has fenced this log yet, by asking the NameNode whether its directory still has its
   * name: a recovery renames it before the region it recovers for loads any group state. So whatever this server
   * made durable before a check that passes, the groups' next leaders load; after one that throws, it must let
   * nothing out. One NameNode call, no DataNode: the rename and this lookup are ordered by the NameNode (an HA
   * deployment with observer reads must send it to the active NameNode, as HDFS does unless told otherwise).
   *
   * @throws WalFencedException if the log was fenced
   * @throws IOException if HDFS could not answer (not known either way)
   */
  public void checkNotFenced() throws IOException {
    metrics.namenodeCalled();
    if (!fs.exists(root)) {
      throw new WalFencedException("the G-Store WAL " + root + " was fenced by a recovery: this server is dead to"
          + " HBase");
    }
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
    Path marker = new Path(root, WalFiles.CLOSED_CLEANLY);
    // never recreates a directory a recovery renamed away: that log is being replayed, not closed
    fs.createNonRecursive(marker, false, fs.getConf().getInt("io.file.buffer.size", 4096),
        fs.getDefaultReplication(marker), fs.getDefaultBlockSize(marker), null).close();
  }
}
