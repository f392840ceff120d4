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

/** Reads G-Store WAL files on HDFS: for replay after a crash, and for {@code WalPrinter}. */
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
  /**
   * A marker a log's directory gets as its streams open: its writers seal a file whose write failed
   * ({@link #seal}). A log without it (an earlier release's) may hold an unsealed torn record at the end of any file,
   * which is read as before: as a torn tail.
   */
  public static final String SEALS_FAILED_WRITES = "seals-failed-writes";
  /** What a {@link #seal} adds to its file's name. */
  private static final String SEALED = ".sealed-";

  private WalFiles() {}

  /** The readable records of one WAL file, where they end, and why reading stopped there. */
  public record Contents(List<WalRecordProto> records, long validBytes, WalFormat.Stop stop, String stoppedBecause) {
    /** Whether a complete record failed to read back: the records behind it are lost to a reader. */
    public boolean corrupt() {
      return stop == WalFormat.Stop.CORRUPT;
    }
  }

  /**
   * The records of {@code file}, read as far as they may be trusted. Only the last file of its stream may end
   * inside a record (a crash cut it short); a file its writer sealed after a failed write ({@link #seal}) is read
   * exactly to its seal (what follows was written again in the next file). Any other file was rolled or closed
   * after a sync, so it ends exactly after a record: one that ends inside a record is corrupt (a length field
   * pointing past its end, say), and the records behind that place are not dropped silently.
   */
  public static Contents read(FileSystem fs, Path file) throws IOException {
    long sealedAt = -1;
    boolean lastOfStream = true;
    for (FileStatus s : fs.listStatus(file.getParent())) {
      String name = s.getPath().getName();
      if (name.startsWith(file.getName() + SEALED)) {
        sealedAt = Long.parseLong(name.substring(file.getName().length() + SEALED.length()));
      } else if (name.endsWith(".wal") && name.compareTo(file.getName()) > 0) {
        lastOfStream = false;
      }
    }
    List<WalRecordProto> records = new ArrayList<>();
    try (InputStream in = fs.open(file)) {
      WalFormat.Reader reader = new WalFormat.Reader(sealedAt < 0 ? in : new BoundedInputStream(in, sealedAt));
      for (byte[] payload = reader.next(); payload != null; payload = reader.next()) {
        records.add(WalRecordProto.parseFrom(payload));
      }
      WalFormat.Stop stop = reader.stop();
      String because = reader.stoppedBecause();
      if (sealedAt >= 0 && reader.offset() != sealedAt) {
        stop = WalFormat.Stop.CORRUPT;
        because = "sealed at " + sealedAt + " bytes after a failed write, but its records end at " + reader.offset()
            + " (" + because + ")";
      } else if (stop == WalFormat.Stop.TORN_TAIL && !lastOfStream && sealsFailedWrites(fs, file)) {
        stop = WalFormat.Stop.CORRUPT;
        because = because + ", though later files follow it: it was closed after a sync, so this is corruption";
      }
      return new Contents(records, reader.offset(), stop, because);
    }
  }

  /** Whether the log {@code file} belongs to (its stream's parent directory) seals its failed writes. */
  private static boolean sealsFailedWrites(FileSystem fs, Path file) throws IOException {
    Path log = file.getParent().getParent();
    return log != null && fs.exists(new Path(log, SEALS_FAILED_WRITES));
  }

  /**
   * The mark that {@code file} holds exactly {@code bytes} of records: written by its stream when a write to it
   * failed, before the stream writes that write's records again in a new file. Not a WAL file itself.
   */
  public static Path seal(Path file, long bytes) {
    return new Path(file.getParent(), file.getName() + SEALED + bytes);
  }

  /** A stream that ends after {@code limit} bytes. */
  private static final class BoundedInputStream extends java.io.FilterInputStream {
    private long left;

    BoundedInputStream(InputStream in, long limit) {
      super(in);
      this.left = limit;
    }

    @Override
    public int read() throws IOException {
      if (left <= 0) {
        return -1;
      }
      int b = super.read();
      if (b >= 0) {
        left--;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left <= 0) {
        return -1;
      }
      int n = super.read(b, off, (int) Math.min(len, left));
      if (n > 0) {
        left -= n;
      }
      return n;
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
