package org.gstore.coprocessor.wal;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.common.wal.WalFormat;
import org.gstore.coprocessor.concurrent.BatchingThread;
import org.gstore.recovery.hbase.WalFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One stream of the shared write-ahead log: files on HDFS written by a single thread with group commit. Appends
 * queue up; the writer takes everything waiting, writes it, makes it durable with one {@code hflush} (or
 * {@code hsync}), and only then completes the appends' futures, in order, with their sequence numbers. Files roll
 * by size; a restarted stream starts a new file and never appends to an old one.
 *
 * <p>Fencing: when this server is declared dead, a recovery renames its WAL directory and recovers the HDFS lease
 * of every file in it. From then on a write of this stream fails (its file's lease and blocks were taken over), and
 * so does starting a new file (the directory is gone), so a zombie of this server acknowledges no commit the
 * recovery did not see.
 *
 * <p>A stream that keeps failing for another reason (an HDFS quota on its directory, a pipeline that cannot be
 * rebuilt) gives up after {@code failureStopMillis}: its appends fail with a {@link WalStoppedException} and the
 * server stops, as HBase's region server does when its own WAL cannot roll. Retrying without end would leave the
 * group's commit in doubt and every closing region waiting.
 */
public final class WalStream implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(WalStream.class);

  private record Pending(byte[] frame, CompletableFuture<Long> done) {}

  /**
   * A file no longer written: the last sequence number in it (-1 if none), when it was closed, and its seal (null
   * if it was closed after a sync).
   */
  private record ClosedFile(Path path, long lastSeq, long closedAt, Path seal) {}

  private final FileSystem fs;
  private final Path dir;
  private final long rollBytes;
  private final boolean hsync;
  private final long failureStopMillis;
  private final WalMetrics metrics;
  /** Why this stream gave up for good, or null. */
  private volatile WalStoppedException stopped;
  private final BatchingThread<Pending> writer;
  private FSDataOutputStream out;
  private long fileSeq;
  private long fileBytes;
  /** Bytes of the file being written that a sync made durable: where its records end, whatever a failure left. */
  private long durableBytes;
  /** The seal of the file being written, once a write to it failed ({@link #seal}). */
  private Path seal;
  private long nextSeq;
  private final java.util.ArrayDeque<ClosedFile> closedFiles = new java.util.ArrayDeque<>();
  private volatile boolean closed;

  WalStream(FileSystem fs, Path dir, long rollBytes, boolean hsync, long failureStopMillis, WalMetrics metrics)
      throws IOException {
    this.failureStopMillis = failureStopMillis;
    this.fs = fs;
    this.dir = dir;
    this.rollBytes = rollBytes;
    this.hsync = hsync;
    this.metrics = metrics;
    fs.mkdirs(dir);
    for (FileStatus f : fs.listStatus(dir)) {
      String name = f.getPath().getName();
      if (name.endsWith(".wal")) {
        fileSeq = Math.max(fileSeq, Long.parseLong(name.substring(0, name.length() - 4)));
      }
    }
    roll();
    // a write that throws unexpectedly leaves the file in an unknown state: the stream takes nothing more, and the
    // server stops, as for any failure it cannot retry
    this.writer = new BatchingThread<>("gstore-wal-" + dir.getName(), this::write, (batch, e) -> {
      stopped = new WalStoppedException("the G-Store WAL " + dir + " failed unexpectedly: " + e, e);
      batch.forEach(p -> p.done.completeExceptionally(stopped));
    });
  }

  /** Appends a record; the future completes with its sequence number in this stream once it is durable. */
  CompletableFuture<Long> append(byte[] payload) {
    CompletableFuture<Long> done = new CompletableFuture<>();
    if (stopped != null) {
      done.completeExceptionally(stopped);
    } else if (closed) {
      done.completeExceptionally(new IOException("the G-Store WAL is closed"));
    } else {
      writer.add(new Pending(WalFormat.frame(payload), done));
    }
    return done;
  }

  /** The file being written, for tools and tests. */
  synchronized Path currentFile() {
    return file(fileSeq);
  }

  private Path file(long seq) {
    return new Path(dir, String.format("%020d.wal", seq));
  }

  /**
   * Writes a batch and makes it durable. A write that fails may still have reached HDFS in part, so its records'
   * outcome is unknown; rather than report them failed (a replay could still find them), the stream rolls to a new
   * file and writes them again until they are durable (a replay that finds a record twice writes the same cells).
   * Only a stream that is closed, or fenced by a recovery (its directory is gone), fails them.
   */
  private void write(List<Pending> batch) {
    long backoff = 100;
    long failingSince = -1;
    while (true) {
      if (stopped != null) {
        batch.forEach(p -> p.done.completeExceptionally(stopped));
        return;
      }
      try {
        long start = System.nanoTime();
        for (Pending p : batch) {
          out.write(p.frame);
          fileBytes += p.frame.length;
        }
        if (hsync) {
          out.hsync();
        } else {
          out.hflush();
        }
        durableBytes = fileBytes;
        metrics.synced(batch.size(), System.nanoTime() - start);
        for (Pending p : batch) {
          p.done.complete(nextSeq++);
        }
        if (fileBytes >= rollBytes) {
          roll();
        }
        return;
      } catch (IOException e) {
        LOG.error("G-Store WAL write to {} failed; writing its {} records again in a new file", currentFile(),
            batch.size(), e);
        failingSince = failingSince < 0 ? System.currentTimeMillis() : failingSince;
        IOException rollFailure = rollAfterFailure(e);
        IOException stop = rollFailure != null || System.currentTimeMillis() - failingSince < failureStopMillis
            ? rollFailure : new WalStoppedException("the G-Store WAL " + dir + " has failed for "
              + (System.currentTimeMillis() - failingSince) + " ms (" + e.getMessage() + "): G-Store must stop on"
              + " this server", e);
        if (stop instanceof WalStoppedException s) {
          stopped = s;
        }
        if (stop != null) {
          batch.forEach(p -> p.done.completeExceptionally(stop));
          return;
        }
        if (!sleep(backoff)) {
          batch.forEach(p -> p.done.completeExceptionally(new IOException("the G-Store WAL is closing", e)));
          return;
        }
        backoff = Math.min(backoff * 2, 2_000);
      }
    }
  }

  /** Rolls after a failed write; returns why the batch must fail instead (closed or fenced), or null to retry. */
  private IOException rollAfterFailure(IOException cause) {
    if (closed) {
      return new IOException("the G-Store WAL is closed", cause);
    }
    try {
      seal();
      roll();
      return null;
    } catch (IOException rollFailure) {
      try {
        if (!fs.exists(dir)) {
          return new WalFencedException("the G-Store WAL " + dir + " was fenced by a recovery: this server is dead"
              + " to HBase", cause);
        }
      } catch (IOException unknown) {
        // cannot tell: retry
      }
      LOG.error("G-Store WAL cannot roll to a new file; retrying", rollFailure);
      return null;
    }
  }

  private static boolean sleep(long millis) {
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Marks the file being written as holding exactly its durable bytes ({@link WalFiles#seal}): a failed write may
   * have left part of a record after them, and a reader must tell that, harmless (the record is written again in
   * the next file), from a torn record in a closed file, which is corruption.
   */
  private void seal() throws IOException {
    if (seal != null || !fs.exists(file(fileSeq))) {
      return;
    }
    Path mark = WalFiles.seal(file(fileSeq), durableBytes);
    fs.createNonRecursive(mark, true, 4096, fs.getDefaultReplication(dir), fs.getDefaultBlockSize(dir), null)
        .close();
    seal = mark;
  }

  private synchronized void roll() throws IOException {
    if (out != null) {
      try {
        out.close();
      } catch (IOException e) {
        LOG.warn("closing G-Store WAL file {} failed", file(fileSeq), e);
      }
      closedFiles.add(new ClosedFile(file(fileSeq), nextSeq - 1, System.currentTimeMillis(), seal));
    }
    seal = null;
    durableBytes = 0;
    fileSeq++;
    // never recreates the directory: a recovery renames a dead server's directory to fence it, and a zombie of
    // that server must not start a new file (and acknowledge commits in it) behind the recovery's back
    out = fs.createNonRecursive(file(fileSeq), false, fs.getConf().getInt("io.file.buffer.size", 4096),
        fs.getDefaultReplication(dir), fs.getDefaultBlockSize(dir), null);
    fileBytes = 0;
  }

  /**
   * Deletes the closed files whose records are all at or below {@code neededAbove} (no longer needed by any
   * replay) and that were closed at least {@code retainMillis} ago (a commit retried across a crash finds its
   * outcome in them meanwhile). Files go oldest first, so the log stays a suffix. Returns how many went.
   */
  synchronized int truncate(long neededAbove, long retainMillis) throws IOException {
    int deleted = 0;
    long now = System.currentTimeMillis();
    while (!closedFiles.isEmpty() && closedFiles.peekFirst().lastSeq() <= neededAbove
        && now - closedFiles.peekFirst().closedAt() >= retainMillis) {
      ClosedFile gone = closedFiles.pollFirst();
      fs.delete(gone.path(), false);
      if (gone.seal() != null) {
        fs.delete(gone.seal(), false);
      }
      deleted++;
    }
    return deleted;
  }

  /** Files of this stream on HDFS, the one being written included. */
  synchronized int fileCount() {
    return closedFiles.size() + 1;
  }

  /** Stops writing as a crash would: queued appends fail, the file is left open as it is. */
  void abandon() {
    closed = true;
    IOException gone = new IOException("G-Store on this server crashed");
    writer.close(0).forEach(p -> p.done.completeExceptionally(gone));
  }

  @Override
  public void close() {
    closed = true;
    IOException gone = new IOException("the G-Store WAL is closed");
    writer.close(5_000).forEach(p -> p.done.completeExceptionally(gone));
    synchronized (this) {
      try {
        out.close();
      } catch (IOException e) {
        LOG.warn("closing G-Store WAL file failed", e);
      }
    }
  }
}
