package org.gstore.coprocessor.txn;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.gstore.common.CommitRefusedException;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.Columns;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;

/**
 * Refuses, before anything is logged or acknowledged, a commit that HBase would refuse to apply: a column family
 * the table does not have, a cell above {@code hbase.server.keyvalue.maxsize}, a table that cannot hold members;
 * and a commit above {@code gstore.txn.max.commit.bytes}, which could be logged but, above the WAL format's frame
 * limit, never replayed.
 * Such a commit would otherwise be durable in the WAL and then fail in the shipper forever. Also refuses
 * malformed requests that a raw RPC can send: an empty or oversized transaction id, a row written twice, a
 * column written twice in one row. The errors are the ones HBase gives for the same plain write where it has one
 * ({@link NoSuchColumnFamilyException}), otherwise a {@link CommitRefusedException} that says what is wrong.
 */
public final class CommitValidator {
  static final int MAX_TXN_ID_CHARS = 256;

  private final MemberTables tables;
  private final long maxCellBytes;
  private final long maxCommitBytes;

  /**
   * @param maxCellBytes HBase's {@code hbase.server.keyvalue.maxsize}; 0 or less: no limit
   * @param maxCommitBytes {@code gstore.txn.max.commit.bytes}: the most a commit's writes may take, serialized
   */
  public CommitValidator(MemberTables tables, long maxCellBytes, long maxCommitBytes) {
    this.tables = tables;
    this.maxCellBytes = maxCellBytes;
    this.maxCommitBytes = maxCommitBytes;
  }

  /** Checks a transaction id: one no commit can have (none was ever accepted), so it is refused before anything. */
  static void checkTxnId(String txnId) throws CommitRefusedException {
    if (txnId.isEmpty() || txnId.length() > MAX_TXN_ID_CHARS) {
      throw new CommitRefusedException("a transaction id must have 1 to " + MAX_TXN_ID_CHARS + " characters, not "
          + txnId.length());
    }
  }

  /**
   * Checks a commit; returns its writes with every key canonical (see {@link Requests#key}), as they are to be
   * logged, cached and shipped: the owner token the shipper signs must name the row as the fence sees it.
   */
  List<RowWriteProto> check(String txnId, List<RowWriteProto> writes) throws IOException {
    checkTxnId(txnId);
    long bytes = 0;
    for (RowWriteProto w : writes) {
      bytes += w.getSerializedSize();
    }
    if (bytes > maxCommitBytes) {
      throw new CommitRefusedException("a commit of " + bytes + " bytes is above the limit of " + maxCommitBytes
          + " bytes (" + GStoreConfig.TXN_MAX_COMMIT_BYTES + "); nothing was committed. Split it into several"
          + " transactions");
    }
    Set<Key> rows = new HashSet<>();
    List<RowWriteProto> canonical = new ArrayList<>(writes.size());
    for (RowWriteProto w : writes) {
      Key key = Requests.key(w.getKey());
      canonical.add(key.table().equals(w.getKey().getTable()) ? w
          : w.toBuilder().setKey(w.getKey().toBuilder().setTable(key.table())).build());
      if (!rows.add(key)) {
        throw new CommitRefusedException("row " + key + " is written twice in one commit; send one write per row");
      }
      TableDescriptor descriptor = tables.descriptor(key.table());
      if (descriptor == null) {
        throw new CommitRefusedException("row " + key + ": " + tables.problemWith(key.table()));
      }
      Set<com.google.protobuf.ByteString> columns = new HashSet<>();
      for (ColumnProto c : w.getColumnsList()) {
        if (!columns.add(Columns.key(c.getFamily(), c.getQualifier()))) {
          throw new CommitRefusedException("column " + c.getFamily().toStringUtf8() + ":"
              + c.getQualifier().toStringUtf8() + " of row " + key + " is written twice in one commit");
        }
        if (!descriptor.hasColumnFamily(c.getFamily().toByteArray())) {
          throw new NoSuchColumnFamilyException("column family " + c.getFamily().toStringUtf8()
              + " does not exist in table " + key.table() + " (row " + key + "); nothing was committed");
        }
        long size = KeyValue.getKeyValueDataStructureSize(key.row().length, c.getFamily().size(),
            c.getQualifier().size(), c.getValue().size());
        if (maxCellBytes > 0 && size > maxCellBytes) {
          throw new CommitRefusedException("a cell of row " + key + " would take " + size + " bytes, above HBase's"
              + " limit of " + maxCellBytes + " (hbase.server.keyvalue.maxsize); nothing was committed");
        }
      }
    }
    return canonical;
  }
}
