package org.gstore.coprocessor.wal;

import java.io.IOException;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.apache.hadoop.util.Progressable;
import org.gstore.common.wal.WalFormat;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.recovery.hbase.WalFiles;

/**
 * One seeded schedule of the production {@link SharedWal} writing to a local file system whose writes fail now and
 * then part-way (the stream seals the file and writes the records again in a new one), a crash that leaves a record
 * torn at the end of a stream's last file, and, in half the schedules, damage to a file that was rolled or closed
 * (a frame cut short, a length pointing past the file's end, a flipped byte); then every stream read for replay by
 * {@link WalFiles#readForReplay}, as a recovery reads it.
 *
 * <p>The promise (issue 35, item 5): a replay reads every acknowledged record of a stream exactly once and in order,
 * or stops loudly on the damaged file ({@link WalFiles.CorruptWalException}); it never drops an acknowledged record
 * silently, and never stops on a log nothing damaged. Not modelled: a closed file cut exactly at a frame boundary
 * (files carry no trailer; HDFS reports a lost block as a read error, which fails the replay, not as a short file).
 */
final class WalFilesSimulation {
  /** A bug planted by wiring the classes as a careless runtime would. */
  enum Defect {
    NONE,
    /**
     * The log lacks the mark that its writers seal failed writes, as a log of the release before issue 35 does:
     * the reader then takes a closed file that ends inside a frame for a torn tail and drops what follows.
     */
    LOG_WITHOUT_SEALS_MARK
  }

  record Result(long seed, List<String> violations, int acknowledged, boolean damaged, boolean stoppedLoudly) {
    boolean ok() {
      return violations.isEmpty();
    }
  }

  private static final Configuration CONF = new Configuration();
  private static final WalMetrics METRICS = new WalMetrics(MetricRegistries.global()
      .create(new MetricRegistryInfo("WalFilesSimulation", "test", "test", "test", false)));

  private final long seed;
  private final Defect defect;
  private final Random rnd;
  private final List<String> trace = new ArrayList<>();

  WalFilesSimulation(long seed, Defect defect) {
    this.seed = seed;
    this.defect = defect;
    this.rnd = new Random(seed);
  }

  List<String> trace() {
    return trace;
  }

  Result run() throws Exception {
    return org.gstore.coprocessor.ScratchDirectory.use("wal-sim-" + seed, this::run);
  }

  private Result run(Path root) throws Exception {
    FailingWrites fs = new FailingWrites(FileSystem.getLocal(CONF).getRaw(), new Random(~seed));
    fs.setConf(CONF);
    int streams = 1 + rnd.nextInt(3);
    long rollBytes = 150 + rnd.nextInt(1_500);
    SharedWal wal = new SharedWal(fs, root, streams, rollBytes, false, 60_000, METRICS, stopped -> { });
    trace.add(streams + " stream(s), rolled every " + rollBytes + " bytes");
    List<List<Long>> acked = new ArrayList<>();
    for (int s = 0; s < streams; s++) {
      acked.add(new ArrayList<>());
    }
    int records = 20 + rnd.nextInt(60);
    int failures = rnd.nextInt(3);
    for (long id = 0; id < records; ) {
      if (failures > 0 && rnd.nextInt(records / 3 + 1) == 0) {
        failures--;
        fs.failing.set(1 + rnd.nextInt(2));
        trace.add("the next write(s) fail part-way, from record " + id);
      }
      List<CompletableFuture<org.gstore.recovery.WalPosition>> batch = new ArrayList<>();
      List<Long> ids = new ArrayList<>();
      for (int k = 1 + rnd.nextInt(4); k > 0 && id < records; k--, id++) { // appends in flight together
        batch.add(wal.appendProtocol(rnd.nextInt(streams), record(id).toByteArray()));
        ids.add(id);
      }
      for (int k = 0; k < batch.size(); k++) {
        acked.get(batch.get(k).get(30, TimeUnit.SECONDS).stream()).add(ids.get(k));
      }
    }
    wal.abandon(); // the crash: files left as they are
    // and wait for the writer thread to end: having acknowledged the last batch it may still roll to a new file,
    // and the torn tail below belongs at the end of the stream's last file (a file is closed only after a sync)
    wal.close();
    FileSystem raw = FileSystem.getLocal(CONF).getRaw();
    List<List<Path>> files = new ArrayList<>();
    for (int s = 0; s < streams; s++) {
      files.add(WalFiles.files(raw, new Path(root, "stream-" + s)));
    }
    if (rnd.nextBoolean()) {
      tearTail(files.get(rnd.nextInt(streams)));
    }
    boolean damaged = rnd.nextBoolean() && damageAClosedFile(raw, files);
    if (defect == Defect.LOG_WITHOUT_SEALS_MARK) {
      raw.delete(new Path(root, WalFiles.SEALS_FAILED_WRITES), false);
    }
    return check(raw, files, acked, damaged);
  }

  private Result check(FileSystem raw, List<List<Path>> files, List<List<Long>> acked, boolean damaged)
      throws IOException {
    List<String> violations = new ArrayList<>();
    boolean loud = false;
    int acknowledged = 0;
    for (int s = 0; s < files.size(); s++) {
      List<Long> read = new ArrayList<>();
      boolean stopped = false;
      for (Path f : files.get(s)) {
        try {
          WalFiles.readForReplay(raw, f).forEach(r -> read.add(r.getCommitTs()));
        } catch (WalFiles.CorruptWalException e) {
          stopped = true;
          trace.add("stream " + s + ": the replay stops loudly: " + e.getMessage());
          break;
        }
      }
      acknowledged += acked.get(s).size();
      loud |= stopped;
      if (stopped && !damaged) {
        violations.add("stream " + s + " stopped as corrupt, but nothing damaged it");
      }
      if (stopped) {
        continue;
      }
      if (new HashSet<>(read).size() != read.size()) {
        violations.add("stream " + s + " reads a record twice: " + read);
      }
      Set<Long> ackedSet = new HashSet<>(acked.get(s));
      List<Long> readAcked = read.stream().filter(ackedSet::contains).toList();
      if (!readAcked.equals(acked.get(s))) {
        violations.add("stream " + s + " reads acknowledged records " + readAcked + " (silently), not "
            + acked.get(s));
      }
    }
    return new Result(seed, violations, acknowledged, damaged, loud);
  }

  /** A record in flight when the crash hit: part of a frame at the end of the stream's last file. */
  private void tearTail(List<Path> stream) throws IOException {
    Path last = stream.get(stream.size() - 1);
    byte[] frame = WalFormat.frame(record(1_000_000).toByteArray());
    int cut = 1 + rnd.nextInt(frame.length - 1);
    try (RandomAccessFile f = new RandomAccessFile(last.toUri().getPath(), "rw")) {
      f.seek(f.length());
      f.write(frame, 0, cut);
    }
    trace.add("torn tail: " + cut + " of a " + frame.length + "-byte frame at the end of " + last.getName());
  }

  /**
   * Damages a file of a stream that is not its last: cuts it inside a frame, sets a frame's length past the file's
   * end, or flips a byte of a frame. Returns false if no such file has a frame.
   */
  private boolean damageAClosedFile(FileSystem raw, List<List<Path>> files) throws IOException {
    List<Path> closed = new ArrayList<>();
    for (List<Path> stream : files) {
      for (Path f : stream.subList(0, stream.size() - 1)) {
        if (raw.getFileStatus(f).getLen() > 0) {
          closed.add(f);
        }
      }
    }
    if (closed.isEmpty()) {
      return false;
    }
    Path victim = closed.get(rnd.nextInt(closed.size()));
    List<Long> starts = frameStarts(victim);
    int kind = rnd.nextInt(3);
    try (RandomAccessFile f = new RandomAccessFile(victim.toUri().getPath(), "rw")) {
      long length = f.length();
      if (starts.isEmpty()) {
        return false;
      }
      long frame = starts.get(rnd.nextInt(starts.size()));
      if (kind == 0) { // cut inside a frame: never at a boundary (see the class comment)
        long end = starts.stream().filter(x -> x > frame).findFirst().orElse(length);
        long cut = frame + 1 + (long) rnd.nextInt((int) (end - frame - 1));
        f.setLength(cut);
        trace.add("damage: " + victim.getName() + " cut at " + cut + " of " + length + " bytes");
      } else if (kind == 1) {
        int past = (int) Math.min(WalFormat.MAX_PAYLOAD, length - frame + 1 + rnd.nextInt(1 << 20));
        f.seek(frame);
        f.writeInt(past);
        trace.add("damage: " + victim.getName() + " frame at " + frame + " says " + past + " bytes (past the end)");
      } else {
        long at = frame + rnd.nextInt((int) (Math.min(length, frame + 64) - frame));
        f.seek(at);
        int b = f.read();
        f.seek(at);
        f.write(b ^ (1 + rnd.nextInt(255)));
        trace.add("damage: " + victim.getName() + " byte " + at + " flipped");
      }
    }
    return true;
  }

  /** Where each whole frame of {@code file} starts (by the lengths in their headers). */
  private static List<Long> frameStarts(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(java.nio.file.Path.of(file.toUri()));
    List<Long> starts = new ArrayList<>();
    ByteBuffer b = ByteBuffer.wrap(bytes);
    while (b.remaining() >= 8) {
      int at = b.position();
      int length = b.getInt();
      if (length < 0 || length > b.remaining() - 4) {
        break;
      }
      starts.add((long) at);
      b.position(at + 8 + length);
    }
    return starts;
  }

  private WalRecordProto record(long id) {
    return WalRecordProto.newBuilder().setCommitTs(id).setTxnId("r" + id + "-".repeat(rnd.nextInt(40))).build();
  }

  /**
   * A file system whose next {@link #failing} writes each reach the file in part (a random prefix) and then throw,
   * as a pipeline that breaks mid-write does.
   */
  private static final class FailingWrites extends FilterFileSystem {
    final AtomicInteger failing = new AtomicInteger();
    private final Random rnd;

    FailingWrites(FileSystem raw, Random rnd) {
      super(raw);
      this.rnd = rnd;
    }

    @Override
    public FSDataOutputStream createNonRecursive(Path f, FsPermission permission,
        java.util.EnumSet<org.apache.hadoop.fs.CreateFlag> flags, int bufferSize, short replication, long blockSize,
        Progressable progress) throws IOException {
      FSDataOutputStream real = super.createNonRecursive(f, permission, flags, bufferSize, replication, blockSize,
          progress);
      return new FSDataOutputStream(new OutputStream() {
        @Override
        public void write(int b) throws IOException {
          real.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          if (failing.get() > 0) {
            failing.decrementAndGet();
            int part = rnd.nextInt(len + 1); // drawn on the WAL's one writer thread
            real.write(b, off, part);
            real.hflush();
            throw new IOException("planted: the pipeline broke after " + part + " of " + len + " bytes");
          }
          real.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
          real.hflush();
        }

        @Override
        public void close() throws IOException {
          real.close();
        }
      }, null);
    }
  }
}
