package org.gstore.client;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellBuilderFactory;
import org.apache.hadoop.hbase.CellBuilderType;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.gstore.common.CommitRefusedException;
import org.gstore.common.wire.Columns;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.CommitRequest;
import org.gstore.common.wire.generated.GStoreProtos.CommitResponse;
import org.gstore.common.wire.generated.GStoreProtos.ReadStampProto;
import org.gstore.common.wire.generated.GStoreProtos.RowVersionProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;

/**
 * A serializable transaction on a group's rows, executed at the group's leader with optimistic concurrency
 * control. Reads see one consistent snapshot (taken at the first read) plus this transaction's own writes; writes
 * are buffered here and sent at {@link #commit()}, which fails with {@link TransactionConflictException} if a row
 * this transaction read has changed since. A transaction that only reads never conflicts.
 *
 * <p>A transaction is tied to the leader's cache it first read from: if the group's leader region moves, splits
 * or restarts meanwhile, its next read or its commit fails with {@link TransactionConflictException} (its snapshot
 * and the versions it read are gone with that cache), and {@link KeyGroup#transact} runs it again.
 *
 * <p>Use HBase's own {@link Get}, {@link Put} and {@link Delete} on member rows. Every cell a transaction writes
 * gets the transaction's commit timestamp. Options a transaction cannot honour (a Get's filter, time range or
 * versions; a Put's own timestamp, TTL, ACL, labels or durability; a Delete of one version or up to a timestamp)
 * are refused with {@link IllegalArgumentException}, never ignored (docs/client.md). Not thread-safe;
 * {@link #close()} without {@link #commit()} aborts (nothing is left anywhere).
 */
public final class Transaction implements AutoCloseable {
  private enum State { OPEN, COMMITTED, ABORTED, OUTCOME_UNKNOWN }

  /** A row's buffered writes: optionally a delete of the whole row, then column values (null: deleted). */
  private static final class RowWrites {
    boolean deleteRow;
    final Map<ByteString, byte[]> columns = new LinkedHashMap<>();
  }

  private final GStoreClient client;
  private final KeyGroup group;
  private final String id = UUID.randomUUID().toString();
  private final Map<RowKey, RowVersionProto> read = new LinkedHashMap<>();
  private final Map<RowKey, RowWrites> writes = new LinkedHashMap<>();
  private Long snapshot;
  private long incarnation;
  private State state = State.OPEN;
  private long commitTimestamp = -1;

  Transaction(GStoreClient client, KeyGroup group) {
    this.client = client;
    this.group = group;
  }

  /** Reads a member row as of this transaction's snapshot, with this transaction's writes applied. */
  public Result get(TableName table, Get get) throws IOException {
    return get(table, List.of(get))[0];
  }

  /**
   * Reads several member rows in one round trip to the leader. A {@link Get} may select families and columns;
   * options a transaction cannot honour are refused with {@link IllegalArgumentException} naming them, rather than
   * ignored: a filter, a time range, more than one version, per-family limits or offsets, an existence check.
   */
  public Result[] get(TableName table, List<Get> gets) throws IOException {
    requireOpen();
    gets.forEach(SupportedRequests::requireSupported);
    List<RowKey> missing = new ArrayList<>();
    for (Get g : gets) {
      RowKey row = member(table, g.getRow());
      if (!read.containsKey(row) && !missing.contains(row)) {
        missing.add(row);
      }
    }
    if (!missing.isEmpty()) {
      GStoreClient.Snapshot s = client.read(group.id(), snapshot, incarnation, missing);
      snapshot = s.snapshot();
      incarnation = s.incarnation();
      group.saw(incarnation, snapshot);
      for (RowVersionProto row : s.rows()) {
        read.put(RowKey.of(org.gstore.common.wire.DatagramCodec.fromProto(row.getKey())), row);
      }
    }
    Result[] results = new Result[gets.size()];
    for (int i = 0; i < gets.size(); i++) {
      results[i] = result(gets.get(i), RowKey.of(table, gets.get(i).getRow()));
    }
    return results;
  }

  /** Buffers puts on member rows, all or none, sent with the other writes at {@link #commit()}. */
  public void put(TableName table, List<Put> puts) throws IOException {
    for (Put put : puts) { // all or none: a non-member row or a refused option leaves nothing buffered
      member(table, put.getRow());
      SupportedRequests.requireSupported(put);
    }
    for (Put put : puts) {
      put(table, put);
    }
  }

  /**
   * Buffers a put on a member row; sent with the other writes at {@link #commit()}. Every cell takes the commit's
   * timestamp ({@link #commitTimestamp()}): a put with its own timestamp, or with a TTL, is refused with
   * {@link IllegalArgumentException} rather than written differently from what it asks.
   */
  public void put(TableName table, Put put) throws IOException {
    requireOpen();
    SupportedRequests.requireSupported(put);
    RowWrites w = writes.computeIfAbsent(member(table, put.getRow()), r -> new RowWrites());
    for (List<Cell> cells : put.getFamilyCellMap().values()) {
      for (Cell c : cells) {
        w.columns.put(Columns.key(CellUtil.cloneFamily(c), CellUtil.cloneQualifier(c)), CellUtil.cloneValue(c));
      }
    }
  }

  /**
   * Deletes a whole member row ({@code new Delete(row)}), or columns of it ({@code addColumns}), or all columns
   * of a family ({@code addFamily}: the family's columns as this transaction sees them). Every version goes: a
   * delete of one version ({@code addColumn}, {@code addFamilyVersion}) or up to a timestamp
   * ({@code new Delete(row, ts)}) is refused with {@link IllegalArgumentException}.
   */
  public void delete(TableName table, Delete delete) throws IOException {
    requireOpen();
    SupportedRequests.requireSupported(delete);
    RowKey row = member(table, delete.getRow());
    if (delete.getFamilyCellMap().isEmpty()) {
      RowWrites w = writes.computeIfAbsent(row, r -> new RowWrites());
      w.deleteRow = true;
      w.columns.clear();
      return;
    }
    for (List<Cell> cells : delete.getFamilyCellMap().values()) {
      for (Cell c : cells) {
        byte[] family = CellUtil.cloneFamily(c);
        if (c.getType() == Cell.Type.DeleteFamily) {
          for (Cell existing : get(table, new Get(delete.getRow()).addFamily(family)).rawCells()) {
            writes.computeIfAbsent(row, r -> new RowWrites()).columns
                .put(Columns.key(family, CellUtil.cloneQualifier(existing)), null);
          }
        } else {
          writes.computeIfAbsent(row, r -> new RowWrites()).columns
              .put(Columns.key(family, CellUtil.cloneQualifier(c)), null);
        }
      }
    }
  }

  /**
   * Commits: validates at the leader that no row read has changed, makes the writes durable, applies them.
   * Returns once committed. {@link TransactionConflictException} if validation failed (nothing was applied).
   *
   * <p>When the leader cannot be reached or does not answer (it crashed, its region moved, its log is slow), the
   * same commit, with the same transaction id, is sent again until an answer comes or {@code
   * gstore.client.commit.deadline.ms} passes (a call already under way is waited for within HBase's own client
   * timeouts). Whichever leader answers, a commit that already took effect is reported committed, never applied
   * twice, and a refusal means it did not take effect. Without an answer by the deadline it throws
   * {@link CommitOutcomeUnknownException}.
   */
  public void commit() throws IOException {
    requireOpen();
    if (writes.isEmpty()) {
      state = State.COMMITTED; // read-only: its snapshot is consistent; nothing to validate or apply
      return;
    }
    CommitRequest.Builder b = CommitRequest.newBuilder().setTxnId(id);
    if (snapshot != null) {
      b.setIncarnation(incarnation).setSeenTs(snapshot);
    } else { // a blind write: any commit of it comes after the newest answer this client had from the group
      KeyGroup.Seen seen = group.seen();
      b.setIncarnation(seen.incarnation()).setSeenTs(seen.ts());
    }
    read.forEach((row, v) -> b.addReads(ReadStampProto.newBuilder().setKey(v.getKey()).setVersion(v.getVersion())));
    writes.forEach((row, w) -> {
      RowWriteProto.Builder rw = RowWriteProto.newBuilder().setKey(GStoreClient.proto(row)).setDeleteRow(w.deleteRow);
      w.columns.forEach((c, value) -> {
        ColumnProto.Builder col = ColumnProto.newBuilder().setFamily(Columns.family(c)).setQualifier(Columns.qualifier(c));
        if (value != null) {
          col.setValue(ByteString.copyFrom(value));
        }
        rw.addColumns(col);
      });
      b.addWrites(rw);
    });
    state = State.ABORTED; // unless an answer says otherwise below
    CommitResponse response = sendUntilAnswered(b);
    group.saw(response.getIncarnation(), response.getCommitTs());
    commitTimestamp = response.getCommitTs();
    state = State.COMMITTED;
  }

  /** Sends the commit until the leader answers it; see {@link #commit()}. */
  private CommitResponse sendUntilAnswered(CommitRequest.Builder request) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(client.commitDeadlineMillis());
    long pause = 100;
    while (true) {
      try {
        return client.commit(group.id(), request);
      } catch (IOException e) {
        if (isAnswer(e)) {
          throw e;
        }
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0 || interrupted(e)) {
          state = State.OUTCOME_UNKNOWN;
          throw new CommitOutcomeUnknownException("the commit of transaction " + id + " on group " + group.id()
              + " got no answer " + (left <= 0 ? "within " + client.commitDeadlineMillis() + " ms ("
              + GStoreClient.COMMIT_DEADLINE + ")" : "before its caller was interrupted") + "; it takes effect"
              + " once or not at all. Last error: " + e, e);
        }
        pauseBeforeRetry(Math.min(pause, left));
        pause = Math.min(pause * 2, 2_000);
      }
    }
  }

  /**
   * Whether the exception is the leader's answer about this commit, meaning no attempt of it took effect, nor
   * will: a refusal by G-Store (conflict, no such group, not a member), or a refusal the leader makes only after
   * checking that the transaction has no outcome yet ({@link CommitRefusedException},
   * {@link NoSuchColumnFamilyException}, {@link AccessDeniedException}). Any other exception, HBase's own
   * {@link org.apache.hadoop.hbase.DoNotRetryIOException}s included, says nothing of earlier attempts.
   */
  private static boolean isAnswer(IOException e) {
    return e instanceof TransactionConflictException || e instanceof GroupNotFoundException
        || e instanceof NotGroupMemberException || e instanceof CommitRefusedException
        || e instanceof NoSuchColumnFamilyException || e instanceof AccessDeniedException;
  }

  /**
   * Whether the caller was interrupted: its flag, or HBase's plain {@link InterruptedIOException} (which HBase
   * throws without restoring the flag); a timeout, also an {@code InterruptedIOException}, is not.
   */
  private static boolean interrupted(IOException e) {
    return Thread.currentThread().isInterrupted() || e.getClass() == InterruptedIOException.class;
  }

  private void pauseBeforeRetry(long millis) throws CommitOutcomeUnknownException {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      state = State.OUTCOME_UNKNOWN;
      throw new CommitOutcomeUnknownException("interrupted while retrying the commit of transaction " + id
          + "; it takes effect once or not at all", e);
    }
  }

  /** Abandons the transaction; nothing of it is applied. Idempotent. */
  public void abort() {
    if (state == State.OPEN) {
      state = State.ABORTED;
    }
  }

  /** The commit timestamp (the HBase cell timestamp of its writes), or -1 if not committed with writes. */
  public long commitTimestamp() {
    return commitTimestamp;
  }

  @Override
  public void close() {
    abort();
  }

  boolean isOpen() {
    return state == State.OPEN;
  }

  private void requireOpen() {
    if (state != State.OPEN) {
      throw new IllegalStateException("the transaction is " + state.name().toLowerCase());
    }
  }

  private RowKey member(TableName table, byte[] row) throws NotGroupMemberException {
    RowKey key = RowKey.of(table, row);
    if (!group.members().contains(key)) {
      throw new NotGroupMemberException("row " + key + " is not a member of group " + group.id());
    }
    return key;
  }

  /** The row as read, with this transaction's writes on top, restricted to the Get's families and columns. */
  private Result result(Get get, RowKey row) {
    RowVersionProto stored = read.get(row);
    Map<ByteString, byte[]> columns = new LinkedHashMap<>();
    Map<ByteString, Long> timestamps = new LinkedHashMap<>();
    RowWrites w = writes.get(row);
    if (w == null || !w.deleteRow) {
      for (ColumnProto c : stored.getColumnsList()) {
        ByteString key = Columns.key(c.getFamily(), c.getQualifier());
        columns.put(key, c.getValue().toByteArray());
        timestamps.put(key, stored.getVersion());
      }
    }
    if (w != null) {
      w.columns.forEach((c, v) -> {
        if (v == null) {
          columns.remove(c);
        } else {
          columns.put(c, v);
          timestamps.put(c, HConstants.LATEST_TIMESTAMP);
        }
      });
    }
    List<Cell> cells = new ArrayList<>();
    columns.forEach((c, v) -> {
      byte[] family = Columns.family(c).toByteArray();
      byte[] qualifier = Columns.qualifier(c).toByteArray();
      if (selected(get, family, qualifier)) {
        cells.add(CellBuilderFactory.create(CellBuilderType.DEEP_COPY).setRow(get.getRow()).setFamily(family)
            .setQualifier(qualifier).setTimestamp(timestamps.get(c)).setType(Cell.Type.Put).setValue(v).build());
      }
    });
    cells.sort(CellComparator.getInstance());
    return Result.create(cells);
  }

  private static boolean selected(Get get, byte[] family, byte[] qualifier) {
    if (!get.hasFamilies()) {
      return true;
    }
    for (Map.Entry<byte[], NavigableSet<byte[]>> e : get.getFamilyMap().entrySet()) {
      if (Arrays.equals(e.getKey(), family)) {
        return e.getValue() == null || e.getValue().isEmpty() || e.getValue().contains(qualifier);
      }
    }
    return false;
  }
}
