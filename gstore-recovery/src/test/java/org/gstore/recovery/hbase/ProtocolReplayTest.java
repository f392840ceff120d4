package org.gstore.recovery.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.common.protocol.log.ProtocolRecord;
import org.gstore.common.wal.WalFormat;
import org.gstore.common.wire.ProtocolRecordCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A fenced log's protocol state replayed from real WAL files on the local file system. */
@Timeout(30)
class ProtocolReplayTest {
  private final List<LoggedChange> written = new ArrayList<>();

  private static LoggedChange free(String row, long version) {
    return new LoggedChange(new StateChange.RemoveOwner(Key.of("t", row)), version);
  }

  private static byte[] record(long sequence, LoggedChange... changes) {
    return ProtocolRecordCodec.encode(new ProtocolRecord(sequence, List.of(changes)));
  }

  private ProtocolReplay replay(FileSystem fs, Path root) {
    return new ProtocolReplay(fs, root, written::addAll, null, null, 1_000, millis -> { });
  }

  /**
   * Records checkpointed before the last mark are not written again: their rows may have been released since,
   * and the release's delete marker dropped by a major compaction, so writing them would bring the rows back.
   */
  @Test
  void onlyRecordsPastTheLastCheckpointMarkAreWrittenOnce() throws IOException {
    java.nio.file.Path dir = Files.createTempDirectory("protocol-replay");
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Path fenced = new Path(dir.toString(), "log.recovering");
    Path file = new Path(fenced, "stream-0/0001.wal");
    try (OutputStream out = fs.create(file)) {
      out.write(WalFormat.frame(record(1, free("old", 10))));
      out.write(WalFormat.frame(record(2, free("older-but-newer", 11))));
      out.write(WalFormat.frame(ProtocolRecordCodec.encodeCheckpointed(2)));
      out.write(WalFormat.frame(record(3, free("new", 12), free("old", 12))));
    }
    ProtocolReplay replay = replay(fs, new Path(dir.toString()));

    assertThat(replay.replay(fenced, List.of(file))).isEqualTo(2);
    assertThat(written).containsExactlyInAnyOrder(free("new", 12), free("old", 12));
    assertThat(fs.exists(new Path(fenced, ProtocolReplay.REPLAYED))).isTrue();

    written.clear();
    assertThat(replay.replay(fenced, List.of(file))).as("marked: not replayed twice").isZero();
    assertThat(written).isEmpty();
  }

  @Test
  void aLogThatLoggedNoProtocolStateHoldsNoRegionBack() throws IOException {
    java.nio.file.Path dir = Files.createTempDirectory("protocol-replay");
    FileSystem fs = FileSystem.getLocal(new Configuration());
    fs.mkdirs(new Path(dir.toString(), "table-mode-log"));
    fs.mkdirs(new Path(dir.toString(), "wal-mode-log"));
    fs.create(new Path(new Path(dir.toString(), "wal-mode-log"), WalFiles.PROTOCOL_LOGGED)).close();

    ProtocolReplay replay = replay(fs, new Path(dir.toString()));

    assertThat(replay.inTables("table-mode-log")).isTrue();
    assertThat(replay.inTables("wal-mode-log")).isFalse();
  }
}
