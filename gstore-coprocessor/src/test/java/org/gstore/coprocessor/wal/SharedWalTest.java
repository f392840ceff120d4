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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The shared WAL on a local file system whose flushes the test makes fail. */
@Timeout(30)
class SharedWalTest {
  /** A local file system whose files take writes but never flush: a pipeline that cannot be rebuilt. */
  private static final class NeverFlushes extends FilterFileSystem {
    volatile boolean failing;

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

  @Test
  void aStreamThatKeepsFailingGivesUpAndStopsTheServerInsteadOfRetryingWithoutEnd() throws Exception {
    Configuration conf = new Configuration();
    NeverFlushes fs = new NeverFlushes(FileSystem.getLocal(conf));
    fs.setConf(conf);
    Path root = new Path(Files.createTempDirectory("shared-wal").toUri());
    List<WalStoppedException> stops = new CopyOnWriteArrayList<>();
    SharedWal wal = new SharedWal(fs, root, 1, 1 << 20, false, 500, new WalMetrics(MetricRegistries.global()
        .create(new MetricRegistryInfo("SharedWalTest", "test", "test", "test", false))), stops::add);
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
}
