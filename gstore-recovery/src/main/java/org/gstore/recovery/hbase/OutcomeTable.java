package org.gstore.recovery.hbase;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.protocol.GroupId;
import org.gstore.recovery.CommittedTxns;

/**
 * {@code gstore:outcomes}: which transactions committed, kept for the outcome retention (the column family's TTL,
 * {@code gstore.txn.outcome.retain.ms}), so that a commit retried after its group changed leader, or after the
 * leader forgot it, gets its true outcome. One row per transaction (its id first, so the rows of a busy group
 * spread over the table's regions), holding its commit timestamp.
 *
 * <p>The row is written, persisted, before the commit's own writes ({@link CommitApplier}): by the shipper for a
 * live commit, by the replay for a recovered one. A group serves at a new leader only after every
 * commit it made before is shipped or replayed, so there a transaction that has no row here did not commit
 * before; see docs/client.md, "Exactly once".
 */
public final class OutcomeTable implements CommittedTxns {
  public static final TableName NAME = TableName.valueOf("gstore", "outcomes");
  /**
   * Default outcome retention: above the longest a client may resend a commit, its own deadline (5 minutes) plus
   * the last call's HBase retries ({@code hbase.client.operation.timeout}, 20 minutes).
   */
  public static final long DEFAULT_RETAIN_MILLIS = TimeUnit.MINUTES.toMillis(30);
  static final byte[] FAMILY = Bytes.toBytes("o");
  static final byte[] COMMIT_TS = Bytes.toBytes("ts");

  private final Connection connection;

  public OutcomeTable(Connection connection) {
    this.connection = connection;
  }

  /**
   * Creates the table if missing, its rows living {@code retainMillis} after their commit (HBase's TTL, in
   * seconds, rounded up). An existing table keeps its TTL: change it with {@code alter} in the HBase shell.
   */
  public static void ensureExists(Admin admin, long retainMillis) throws IOException {
    if (admin.tableExists(NAME)) {
      return;
    }
    int ttlSeconds = (int) Math.max(1, TimeUnit.MILLISECONDS.toSeconds(retainMillis + 999));
    try {
      admin.createTable(TableDescriptorBuilder.newBuilder(NAME)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY).setMaxVersions(1)
              .setTimeToLive(ttlSeconds).build())
          .setDurability(Durability.SYNC_WAL)
          .build());
    } catch (TableExistsException e) {
      // created by another server
    }
  }

  @Override
  public OptionalLong commitTs(GroupId group, String txnId) throws IOException {
    try (Table t = connection.getTable(NAME)) {
      Result r = t.get(new Get(row(group, txnId)).addColumn(FAMILY, COMMIT_TS));
      return r.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Bytes.toLong(r.getValue(FAMILY, COMMIT_TS)));
    }
  }

  /**
   * The row recording that {@code txnId} committed at {@code commitTs}, persisted when written ({@code SYNC_WAL}):
   * this table's regions may be on a region server that claims nothing, so the thresholds cannot tell when an
   * {@code ASYNC_WAL} row there is persisted (see {@link CommitApplier#apply}).
   */
  static Put put(GroupId group, String txnId, long commitTs) {
    // stamped by the server when written, not with commitTs: the retention runs from when the row exists (a replay
    // may write it long after the commit)
    Put put = new Put(row(group, txnId)).addColumn(FAMILY, COMMIT_TS, Bytes.toBytes(commitTs));
    put.setDurability(CommitApplier.OUTCOME_DURABILITY);
    return put;
  }

  /**
   * Transaction id, then the group's leader key and name, each length-prefixed: no two groups' rows collide. Where
   * that would pass HBase's row length (a name and a leader row near their caps), the transaction id, then -1 where
   * a length would be (no length-prefixed row has it), then the SHA-256 of the group's three parts as above.
   */
  static byte[] row(GroupId group, String txnId) {
    byte[] txn = txnId.getBytes(StandardCharsets.UTF_8);
    byte[] groupParts = lengthPrefixed(group.leader().table().getBytes(StandardCharsets.UTF_8),
        group.leader().row(), group.name().getBytes(StandardCharsets.UTF_8));
    if (Bytes.SIZEOF_INT + txn.length + groupParts.length <= HConstants.MAX_ROW_LENGTH) {
      return Bytes.add(lengthPrefixed(txn), groupParts);
    }
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(groupParts);
      return Bytes.add(lengthPrefixed(txn), Bytes.toBytes(-1), digest);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  private static byte[] lengthPrefixed(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(Bytes.toBytes(part.length));
      out.writeBytes(part);
    }
    return out.toByteArray();
  }
}
