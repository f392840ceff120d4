package org.gstore.testing;

import java.io.IOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.coprocessor.wal.WalMetrics;

/**
 * G-Store WALs of region servers that are not running, written through their own HDFS clients as separate processes
 * would: what a recovery finds after a crash.
 */
final class DeadServerLogs {
  private DeadServerLogs() {}

  /** A WAL of one stream for {@code server} (a name no live region server has) under {@code root}. */
  static SharedWal openWal(FileSystem fs, Path root, String server) throws IOException {
    return new SharedWal(fs, new Path(root, server), 1, 1 << 16, false, 60_000, new WalMetrics(MetricRegistries.global()
        .create(new MetricRegistryInfo("test-wal-" + server, "test", "test", "test", false))), fenced -> { });
  }

  /** A group of a dead leader, led from a row of table {@code t} (which no test creates). */
  static GroupRef group(String name) {
    return new GroupRef(new GroupId(name, Key.of("t", new byte[] {1})), new Uid(new NodeId("dead"), 1));
  }

  /** A commit record of {@code group}; with a table, it writes one cell there. */
  static byte[] record(GroupRef group, String txnId, TableName table) {
    return table == null ? record(group, txnId, null, new String[0]) : record(group, txnId, table, "row");
  }

  /** A commit record of {@code group} writing one cell in each of {@code rows} of {@code table}. */
  static byte[] record(GroupRef group, String txnId, TableName table, String... rows) {
    WalRecordProto.Builder r = WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(group))
        .setCommitTs(System.currentTimeMillis()).setTxnId(txnId); // outcomes live a retention past it
    for (String row : rows) {
      r.addWrites(RowWriteProto.newBuilder()
          .setKey(KeyProto.newBuilder().setTable(table.getNameAsString())
              .setRow(com.google.protobuf.ByteString.copyFromUtf8(row)))
          .addColumns(ColumnProto.newBuilder().setFamily(com.google.protobuf.ByteString.copyFromUtf8("a"))
              .setQualifier(com.google.protobuf.ByteString.copyFromUtf8("q"))
              .setValue(com.google.protobuf.ByteString.copyFromUtf8("v"))));
    }
    return r.build().toByteArray();
  }
}
