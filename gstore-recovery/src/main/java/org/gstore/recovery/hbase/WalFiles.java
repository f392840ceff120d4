package org.gstore.recovery.hbase;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.common.wal.WalFormat;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;

/** Reads G-Store WAL files on HDFS: for replay after a crash, and for {@link WalPrinter}. */
public final class WalFiles {
  /**
   * A marker the log's directory gets when G-Store stopped with every commit it logged persisted in HBase: a
   * recovery of the directory then only learns its transactions' outcomes and writes nothing.
   */
  public static final String CLOSED_CLEANLY = "closed-cleanly";
  /**
   * A marker a log's directory gets, before its first record, when its instance logs protocol state there
   * ({@code gstore.protocol.log=wal}): regions load protocol state only once such a log of a dead instance is
   * replayed ({@link WalRecovery#replayProtocolState}); other logs never hold them back.
   */
  public static final String PROTOCOL_LOGGED = "protocol-logged";

  private WalFiles() {}

  /** The readable records of one WAL file, where they end, and why reading stopped there. */
  public record Contents(List<WalRecordProto> records, long validBytes, WalFormat.Stop stop, String stoppedBecause) {
    /** Whether a complete record failed to read back: the records behind it are lost to a reader. */
    public boolean corrupt() {
      return stop == WalFormat.Stop.CORRUPT;
    }
  }

  public static Contents read(FileSystem fs, Path file) throws IOException {
    List<WalRecordProto> records = new ArrayList<>();
    try (InputStream in = fs.open(file)) {
      WalFormat.Reader reader = new WalFormat.Reader(in);
      for (byte[] payload = reader.next(); payload != null; payload = reader.next()) {
        records.add(WalRecordProto.parseFrom(payload));
      }
      return new Contents(records, reader.offset(), reader.stop(), reader.stoppedBecause());
    }
  }

  /**
   * Reads a file whose records must all be applied: fails, naming the file and the place, if any complete record
   * in it is corrupt (a torn tail, which a crash leaves, is not an error).
   */
  public static List<WalRecordProto> readForReplay(FileSystem fs, Path file) throws IOException {
    Contents contents = read(fs, file);
    if (contents.corrupt()) {
      throw new CorruptWalException("G-Store WAL file " + file + " is corrupt after " + contents.records().size()
          + " records (" + contents.stoppedBecause() + "); the acknowledged commits behind it cannot be read, so"
          + " it is not replayed and the regions waiting for it do not serve. Inspect it with WalPrinter and see"
          + " docs/operations.md, \"A corrupt WAL\"");
    }
    return contents.records();
  }

  /** A WAL file that cannot be read to its end. */
  public static final class CorruptWalException extends IOException {
    private static final long serialVersionUID = 1L;

    CorruptWalException(String message) {
      super(message);
    }
  }

  /** Every WAL file at or below {@code path}, in name order. */
  public static List<Path> files(FileSystem fs, Path path) throws IOException {
    List<Path> files = new ArrayList<>();
    if (!fs.exists(path)) {
      return files;
    }
    for (FileStatus s : fs.listStatus(path)) {
      if (s.isDirectory()) {
        files.addAll(files(fs, s.getPath()));
      } else if (s.getPath().getName().endsWith(".wal")) {
        files.add(s.getPath());
      }
    }
    files.sort(null);
    return files;
  }
}
