package org.gstore.coprocessor.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.apache.hadoop.util.Progressable;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The shared WAL on a local file system whose flushes the test makes fail. */
@Timeout(30)
class SharedWalTest {
  /** A local file system whose files take writes but never flush: a pipeline that cannot be rebuilt. */
  private static final class NeverFlushes extends FilterFileSystem {
    volatile boolean failing;
    final java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();

    NeverFlushes(FileSystem local) {
      super(local);
    }

    @Override
    public FSDataOutputStream createNonRecursive(Path f, FsPermission permission, java.util.EnumSet<
        org.apache.hadoop.fs.CreateFlag> flags, int bufferSize, short replication, long blockSize,
        Progressable progress) throws IOException {
      FSDataOutputStream real = super.createNonRecursive(f, permission, flags, bufferSize, replication, blockSize,
          progress);
      return new FSDataOutputStream(new OutputStream() {
        @Override
        public void write(int b) throws IOException {
          real.write(b);
        }

        @Override
        public void flush() throws IOException {
          if (failing) {
            failed.incrementAndGet();
            throw new IOException("planted: no datanode takes the block");
          }
          real.hflush();
        }

        @Override
        public void close() throws IOException {
          real.close();
        }
      }, null);
    }
  }

  private static final GroupRef GROUP = new GroupRef(new GroupId("g", Key.of("t", "L")),
      new Uid(new NodeId("n1"), 1));

  private final Configuration conf = new Configuration();
  private NeverFlushes fs;
  private Path root;

  @BeforeEach
  void localFileSystem() throws IOException {
    fs = new NeverFlushes(FileSystem.getLocal(conf));
    fs.setConf(conf);
    root = new Path(Files.createTempDirectory("shared-wal").toUri());
  }

  /** A WAL of one stream on {@link #fs} that gives up after {@code giveUpMillis} of failed writes. */
  private SharedWal wal(String name, long giveUpMillis, java.util.function.Consumer<WalStoppedException> stopped)
      throws IOException {
    return new SharedWal(fs, root, 1, 1 << 20, false, giveUpMillis, new WalMetrics(MetricRegistries.global()
        .create(new MetricRegistryInfo(name, "test", "test", "test", false))), stopped);
  }

  @Test
  void aStreamThatKeepsFailingGivesUpAndStopsTheServerInsteadOfRetryingWithoutEnd() throws Exception {
    List<WalStoppedException> stops = new CopyOnWriteArrayList<>();
    SharedWal wal = wal("SharedWalTest", 500, stops::add);
    try {
      assertThat(wal.append(GROUP, new byte[] {1}).get(10, TimeUnit.SECONDS).seq()).isZero();

      fs.failing = true;
      assertThat(wal.append(GROUP, new byte[] {2})).as("given up after 500 ms of failures")
          .failsWithin(Duration.ofSeconds(10)).withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(WalStoppedException.class);
      assertThat(stops).as("the server is told to stop").isNotEmpty()
          .noneMatch(s -> s instanceof WalFencedException);

      fs.failing = false;
      assertThat(wal.append(GROUP, new byte[] {3})).as("a stream that gave up takes nothing more")
          .failsWithin(Duration.ofSeconds(1)).withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(WalStoppedException.class);
    } finally {
      wal.abandon();
    }
  }

  /** A write that failed seals its file at what was durable; the files then read back whole, nothing corrupt. */
  @Test
  void aFailedWriteSealsItsFileAndTheLogReadsBackWhole() throws Exception {
    SharedWal wal = wal("SharedWalTest2", 60_000, stopped -> { });
    try {
      wal.append(GROUP, record(1)).get(10, TimeUnit.SECONDS);
      fs.failing = true;
      java.util.concurrent.CompletableFuture<org.gstore.recovery.WalPosition> second = wal.append(GROUP, record(2));
      org.awaitility.Awaitility.await("a few failed attempts").atMost(Duration.ofSeconds(10))
          .until(() -> fs.failed.get() >= 3);
      fs.failing = false;
      assertThat(second.get(10, TimeUnit.SECONDS).seq()).isEqualTo(1);
      wal.append(GROUP, record(3)).get(10, TimeUnit.SECONDS);
      wal.close(); // the local file system shows an open file's bytes only once it is closed

      FileSystem raw = FileSystem.getLocal(conf).getRaw(); // reads what open files hold (no checksum files)
      List<Path> files = org.gstore.recovery.hbase.WalFiles.files(raw, root);
      assertThat(files).hasSizeGreaterThan(1);
      assertThat(raw.listStatus(files.get(0).getParent())).as("the failed file's seal")
          .anyMatch(f -> f.getPath().getName().startsWith(files.get(0).getName() + ".sealed-"));
      List<Long> read = new java.util.ArrayList<>();
      for (Path f : files) {
        for (var r : org.gstore.recovery.hbase.WalFiles.readForReplay(raw, f)) {
          read.add(r.getCommitTs());
        }
      }
      assertThat(read).as("record 2 once, from the file it was written again in, whatever the failed files hold"
          + " past their seals").containsExactly(1L, 2L, 3L);
    } finally {
      wal.abandon();
    }
  }

  private static byte[] record(long commitTs) {
    return org.gstore.common.wire.generated.GStoreProtos.WalRecordProto.newBuilder().setCommitTs(commitTs)
        .setTxnId("t" + commitTs).build().toByteArray();
  }
}
