package org.gstore.coprocessor.wal;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.gstore.common.protocol.Key;
import org.gstore.common.wal.WalFormat;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;

/**
 * Prints the records of G-Store WAL files, like {@code hbase wal}: for each committed transaction its group,
 * commit timestamp, transaction id and the rows it wrote; then where and why reading stopped (a torn tail is
 * normal after a crash).
 *
 * <p>{@code java -cp <hbase classpath>:gstore-coprocessor-all.jar org.gstore.coprocessor.wal.WalPrinter <file or dir>...}
 */
public final class WalPrinter {
  private WalPrinter() {}

  /** The readable records of one WAL file, and why reading stopped. */
  public record Contents(List<WalRecordProto> records, long validBytes, String stoppedBecause) {}

  public static Contents read(FileSystem fs, Path file) throws IOException {
    List<WalRecordProto> records = new ArrayList<>();
    try (InputStream in = fs.open(file)) {
      WalFormat.Reader reader = new WalFormat.Reader(in);
      for (byte[] payload = reader.next(); payload != null; payload = reader.next()) {
        records.add(WalRecordProto.parseFrom(payload));
      }
      return new Contents(records, reader.offset(), reader.stoppedBecause());
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

  public static void main(String[] args) throws IOException {
    if (args.length == 0) {
      System.err.println("usage: WalPrinter <wal file or directory>...");
      System.exit(2);
    }
    Configuration conf = HBaseConfiguration.create();
    PrintStream out = System.out;
    for (String arg : args) {
      Path path = new Path(arg);
      FileSystem fs = path.getFileSystem(conf);
      for (Path file : files(fs, path)) {
        Contents c = read(fs, file);
        out.println("# " + file + ": " + c.records().size() + " records, " + c.validBytes() + " valid bytes, "
            + c.stoppedBecause());
        for (WalRecordProto r : c.records()) {
          StringBuilder rows = new StringBuilder();
          for (RowWriteProto w : r.getWritesList()) {
            Key k = DatagramCodec.fromProto(w.getKey());
            rows.append(' ').append(k).append(w.getDeleteRow() ? "(deleted)" : "")
                .append('[').append(w.getColumnsCount()).append(" col]");
          }
          out.println(r.getCommitTs() + " " + DatagramCodec.fromProto(r.getGroup()).id() + " txn=" + r.getTxnId()
              + rows);
        }
      }
    }
  }
}
