package org.gstore.recovery.hbase;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.wal.WalFormat;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;

/**
 * The groups of a fenced log whose commits a replay wrote while another group's stayed refused: persisted marks kept
 * beside the log's files (in files of their own, never a stream's), so that every later attempt at the log, on any
 * server, skips those groups, as it skips the groups the log's own marks cover ({@code ReplayFilter}). A group that
 * serves again after its replay must never have its old commits written a second time: after its next leader
 * deleted a value and a compaction dropped the delete marker, that would bring the value back.
 *
 * <p>Written only after the groups' commits are in HBase, and complete before the regions leading them are let
 * open ({@link FencedLogs}): a mark file is created, written and closed whole, and read back only if it closed.
 */
final class ReplayedGroups {
  private static final String PREFIX = "replayed-groups-";
  private static final String WRITING = ".writing";

  private ReplayedGroups() {}

  /** The marks kept for the fenced log at {@code fenced}, in no particular order. */
  static List<WalRecordProto> read(FileSystem fs, Path fenced) throws IOException {
    List<WalRecordProto> marks = new ArrayList<>();
    if (!fs.exists(fenced)) {
      return marks;
    }
    for (FileStatus s : fs.listStatus(fenced)) {
      String name = s.getPath().getName();
      if (s.isDirectory() || !name.startsWith(PREFIX) || name.endsWith(WRITING)) {
        continue;
      }
      try (InputStream in = fs.open(s.getPath())) {
        WalFormat.Reader reader = new WalFormat.Reader(in);
        for (byte[] payload = reader.next(); payload != null; payload = reader.next()) {
          marks.add(WalRecordProto.parseFrom(payload));
        }
        if (reader.stop() != WalFormat.Stop.END) {
          throw new IOException("G-Store's replay marks " + s.getPath() + " are unreadable after " + marks.size()
              + " records (" + reader.stoppedBecause() + ")");
        }
      }
    }
    return marks;
  }

  /**
   * Keeps {@code replayed} (each group's newest commit written) as marks of the fenced log at {@code fenced}: the
   * file is written under a temporary name and renamed once closed, so a reader sees all of it or none.
   */
  static void write(FileSystem fs, Path fenced, Map<GroupRef, Long> replayed) throws IOException {
    if (replayed.isEmpty()) {
      return;
    }
    String name = PREFIX + System.currentTimeMillis() + "-" + System.nanoTime();
    Path writing = new Path(fenced, name + WRITING);
    // never recursive: a pass that lost the log's lock must not bring back a directory another renamed since
    try (FSDataOutputStream out = fs.createNonRecursive(writing, false, 4096, fs.getDefaultReplication(writing),
        fs.getDefaultBlockSize(writing), null)) {
      for (Map.Entry<GroupRef, Long> group : replayed.entrySet()) {
        out.write(WalFormat.frame(WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(group.getKey()))
            .setCommitTs(group.getValue()).setTxnId("").setPersistedMark(true).build().toByteArray()));
      }
      out.hsync();
    }
    if (!fs.rename(writing, new Path(fenced, name))) {
      throw new IOException("cannot keep G-Store's replay marks " + writing + " (rename failed)");
    }
  }
}
