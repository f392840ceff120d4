package org.gstore.recovery.hbase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.common.wal.WalFormat;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Reading WAL files for replay, on the local file system: where a file may end inside a record (the last file of
 * its stream, or a file its writer sealed after a failed write) and where that is corruption.
 */
@Timeout(30)
class WalFilesTest {
  private FileSystem fs;
  private Path stream;

  @BeforeEach
  void open() throws IOException {
    fs = FileSystem.getLocal(new Configuration()).getRaw();
    Path log = new Path(Files.createTempDirectory("wal-files").toUri());
    stream = new Path(log, "stream-0");
    fs.mkdirs(stream);
    fs.create(new Path(log, WalFiles.SEALS_FAILED_WRITES)).close(); // written by this release
  }

  /**
   * Issue 35, item 5: a corrupt length that points past the file's end read as a torn tail, so the records after
   * it in that file were dropped silently while the later files were trusted.
   */
  @Test
  void aFileThatEndsInsideARecordButIsNotItsStreamsLastIsCorrupt() throws IOException {
    byte[] b = WalFormat.frame(record(2));
    ByteBuffer.wrap(b).putInt(0, 1_000_000); // a length within the limit, past the file's end
    Path first = write(1, concat(WalFormat.frame(record(1)), b, WalFormat.frame(record(3))));
    write(2, WalFormat.frame(record(4)));

    assertThat(WalFiles.read(fs, first).corrupt()).isTrue();
    assertThatThrownBy(() -> WalFiles.readForReplay(fs, first)).isInstanceOf(WalFiles.CorruptWalException.class)
        .hasMessageContaining("after 1 records");
  }

  /** A log of the release before seals: a failed write there left its torn record unsealed in a closed file. */
  @Test
  void aLogWrittenBeforeSealsReadsATornFileAsATornTail() throws IOException {
    fs.delete(new Path(stream.getParent(), WalFiles.SEALS_FAILED_WRITES), false);
    byte[] torn = WalFormat.frame(record(2));
    Path failed = write(1, concat(WalFormat.frame(record(1)), java.util.Arrays.copyOf(torn, torn.length - 3)));
    write(2, concat(torn, WalFormat.frame(record(3))));

    assertThat(WalFiles.readForReplay(fs, failed)).extracting(WalRecordProto::getCommitTs).containsExactly(1L);
  }

  @Test
  void theLastFileOfAStreamMayEndInsideARecord() throws IOException {
    write(1, WalFormat.frame(record(1)));
    byte[] torn = WalFormat.frame(record(3));
    Path last = write(2, concat(WalFormat.frame(record(2)), java.util.Arrays.copyOf(torn, torn.length - 3)));

    WalFiles.Contents contents = WalFiles.read(fs, last);
    assertThat(contents.corrupt()).isFalse();
    assertThat(contents.stop()).isEqualTo(WalFormat.Stop.TORN_TAIL);
    assertThat(contents.records()).extracting(WalRecordProto::getCommitTs).containsExactly(2L);
  }

  @Test
  void aSealedFileIsReadExactlyToItsSeal() throws IOException {
    byte[] one = WalFormat.frame(record(1));
    byte[] torn = WalFormat.frame(record(2));
    Path failed = write(1, concat(one, java.util.Arrays.copyOf(torn, torn.length - 3)));
    fs.create(WalFiles.seal(failed, one.length)).close(); // its writer failed after record 1 was durable
    write(2, concat(torn, WalFormat.frame(record(3)))); // and wrote record 2 again in the next file

    assertThat(WalFiles.readForReplay(fs, failed)).extracting(WalRecordProto::getCommitTs).containsExactly(1L);
    assertThat(WalFiles.files(fs, stream)).as("seals are not WAL files").hasSize(2);
  }

  @Test
  void aSealedFileShorterThanItsSealIsCorrupt() throws IOException {
    byte[] one = WalFormat.frame(record(1));
    Path file = write(1, one);
    fs.create(WalFiles.seal(file, one.length + 10)).close();
    write(2, WalFormat.frame(record(2)));

    assertThat(WalFiles.read(fs, file).corrupt()).isTrue();
  }

  private Path write(long seq, byte[] bytes) throws IOException {
    Path file = new Path(stream, String.format("%020d.wal", seq));
    try (OutputStream out = fs.create(file)) {
      out.write(bytes);
    }
    return file;
  }

  private static byte[] record(long commitTs) {
    return WalRecordProto.newBuilder().setCommitTs(commitTs).setTxnId("t" + commitTs).build().toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
