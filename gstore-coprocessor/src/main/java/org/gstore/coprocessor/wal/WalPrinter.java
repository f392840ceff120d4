package org.gstore.coprocessor.wal;

import java.io.IOException;
import java.io.PrintStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.common.protocol.log.ProtocolRecord;
import org.gstore.common.wire.ProtocolRecordCodec;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.recovery.hbase.WalFiles;

/**
 * Prints the records of G-Store WAL files, like {@code hbase wal}: for each committed transaction its group,
 * commit timestamp, transaction id and the rows it wrote; for each protocol record ({@code gstore.protocol.log=wal})
 * its sequence and each change with its version; then where and why reading stopped (a torn tail is normal after a
 * crash).
 *
 * <p>{@code java -cp <hbase classpath>:gstore-coprocessor-all.jar org.gstore.coprocessor.wal.WalPrinter <file or dir>...}
 */
public final class WalPrinter {
  private WalPrinter() {}

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
      for (Path file : WalFiles.files(fs, path)) {
        WalFiles.Contents c = WalFiles.read(fs, file);
        out.println("# " + file + ": " + c.records().size() + " records, " + c.validBytes() + " valid bytes, "
            + c.stoppedBecause());
        for (WalRecordProto r : c.records()) {
          if (r.hasProtocol()) {
            out.println(describe(ProtocolRecordCodec.decode(r)));
            continue;
          }
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

  /** One protocol record: {@code protocol #<sequence> v<version> <change>...}. */
  static String describe(ProtocolRecord record) {
    StringBuilder line = new StringBuilder("protocol #").append(record.sequence());
    for (LoggedChange c : record.changes()) {
      line.append(" v").append(c.version()).append(' ').append(describe(c.change()));
    }
    return line.toString();
  }

  private static String describe(StateChange change) {
    if (change instanceof StateChange.PutGroup p) {
      return "group " + p.record().group() + " " + p.record().phase() + " " + p.record().members().size()
          + " members";
    } else if (change instanceof StateChange.RemoveGroup r) {
      return "group " + r.group() + " removed";
    } else if (change instanceof StateChange.PutOwner p) {
      return "owner " + p.record().key() + " " + p.record().state() + " " + p.record().group();
    } else if (change instanceof StateChange.RemoveOwner r) {
      return "owner " + r.key() + " free";
    }
    StateChange.ReserveUids u = (StateChange.ReserveUids) change;
    return "uids " + u.node() + " up to " + u.upTo();
  }
}
