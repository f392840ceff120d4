package org.gstore.recovery.hbase;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotEnabledException;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.OperationTimeoutExceededException;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Table;
import org.gstore.common.RowGroupedException;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.OwnerToken;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.recovery.CommitSink;
import org.gstore.recovery.Shipment;

/**
 * Writes committed transactions into HBase: each cell carries its commit's timestamp and each mutation the owning
 * group's token (to pass fencing), so writing a commit twice, or commits out of order, leaves HBase as writing
 * each once in order would. Shared by the {@code UpdateShipper} (live commits) and WAL replay after a crash.
 */
public final class CommitApplier implements CommitSink {
  /** The durability of outcome rows, whatever the commits' own: see {@link #apply}. */
  public static final Durability OUTCOME_DURABILITY = Durability.SYNC_WAL;

  private final Connection connection;
  private final OwnerToken tokens;
  private final Durability durability;
  /** How long one HBase batch may take, HBase's client retries included (0: the client's own setting). */
  private final int operationTimeoutMillis;
  /** Whether {@link #apply} writes the commits' outcome rows first (all but {@link #persistingShipped}). */
  private final boolean writesOutcomes;

  public CommitApplier(Connection connection, OwnerToken tokens, Durability durability) {
    this(connection, tokens, durability, 0);
  }

  /** @param operationTimeoutMillis bounds each HBase batch, its client-side retries included (0: no bound of ours) */
  public CommitApplier(Connection connection, OwnerToken tokens, Durability durability, int operationTimeoutMillis) {
    this(connection, tokens, durability, operationTimeoutMillis, true);
  }

  private CommitApplier(Connection connection, OwnerToken tokens, Durability durability, int operationTimeoutMillis,
      boolean writesOutcomes) {
    this.connection = connection;
    this.tokens = tokens;
    this.durability = durability;
    this.operationTimeoutMillis = operationTimeoutMillis;
    this.writesOutcomes = writesOutcomes;
  }

  /**
   * Writes commits that were shipped before once more, persisted ({@code SYNC_WAL}), without their outcome rows:
   * a commit is shipped only once {@link #apply} wrote its outcome, persisted whatever the commits' durability, so
   * only its rows may need persisting. A drain's writes are on a delete's path; the outcome row was one more call.
   */
  public static CommitApplier persistingShipped(Connection connection, OwnerToken tokens) {
    return new CommitApplier(connection, tokens, Durability.SYNC_WAL, 0, false);
  }

  /**
   * Writes {@code batch}: first the outcome of each commit ({@link OutcomeTable}), persisted ({@code SYNC_WAL}),
   * then the commits in one HBase batch per table, with this applier's durability. Outcomes go first so that a
   * commit HBase takes, or refuses for good, always has its outcome recorded: a commit retried at another leader
   * must learn it happened. They are persisted whatever the commits' durability because {@code gstore:outcomes}
   * may be on a region server no claim covers (one that runs no G-Store region registers none): an
   * {@code ASYNC_WAL} row there could vanish with its server after the thresholds let the leader forget the
   * commit, and a retry would then commit it again.
   */
  @Override
  public void apply(List<Shipment> batch) throws IOException {
    Map<TableName, List<Mutation>> byTable = new LinkedHashMap<>();
    List<Mutation> outcomes = new ArrayList<>(batch.size());
    try {
      for (Shipment s : batch) {
        if (writesOutcomes && !s.txnId().isEmpty()) {
          outcomes.add(OutcomeTable.put(s.group().id(), s.txnId(), s.commitTs()));
        }
      }
      if (!outcomes.isEmpty()) {
        write(OutcomeTable.NAME, outcomes);
      }
    } catch (InterruptedIOException e) {
      throw e;
    } catch (IOException | RuntimeException e) { // never "refused for good": that would quarantine every commit
      // without its outcome, and a retry at another leader would commit it again
      throw new IOException("cannot record commit outcomes in " + OutcomeTable.NAME + " (" + e + "); the commits"
          + " are shipped once it takes them", e);
    }
    try {
      for (Shipment s : batch) {
        for (RowWriteProto w : s.writes()) {
          Key key = Key.of(w.getKey().getTable(), w.getKey().getRow().toByteArray());
          byTable.computeIfAbsent(TableName.valueOf(key.table()), t -> new ArrayList<>())
              .addAll(mutations(s.group(), s.commitTs(), key, w));
        }
      }
    } catch (RuntimeException e) { // a write HBase's client cannot even express: no retry makes it pass
      throw new DoNotRetryIOException("cannot build the HBase writes of a commit: " + e, e);
    }
    for (Map.Entry<TableName, List<Mutation>> e : byTable.entrySet()) {
      write(e.getKey(), e.getValue());
    }
  }

  private void write(TableName name, List<Mutation> mutations) throws IOException {
    try (Table table = table(name)) {
      table.batch(mutations, new Object[mutations.size()]);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted writing commits to HBase");
    }
  }

  /**
   * Whether HBase refused the writes only because fencing did: their rows are no longer in the commit's group (it
   * was deleted after its commits were persisted), so writing them again is neither possible nor needed.
   */
  public static boolean fencedOut(Throwable e) {
    if (e instanceof RetriesExhaustedWithDetailsException details) {
      return !details.getCauses().isEmpty() && details.getCauses().stream().allMatch(CommitApplier::fencedOut);
    }
    return RowGroupedException.is(e);
  }

  private Table table(TableName name) throws IOException {
    if (operationTimeoutMillis <= 0) {
      return connection.getTable(name);
    }
    return connection.getTableBuilder(name, null).setOperationTimeout(operationTimeoutMillis).build();
  }

  /**
   * Whether no retry can make HBase take the writes. A disabled table is not such a case (it is enabled again,
   * and the commit must land then), although HBase does not retry it either; nor is an operation that ran out of
   * its time.
   */
  public static boolean refusedForGood(Throwable e) {
    if (e instanceof RetriesExhaustedWithDetailsException details) {
      return details.getCauses().stream().anyMatch(CommitApplier::refusedForGood);
    }
    // a bound on the client's own retries (ours, for replay) says nothing about whether a later try lands
    return e instanceof DoNotRetryIOException && !(e instanceof TableNotEnabledException)
        && !(e instanceof OperationTimeoutExceededException);
  }

  /**
   * The HBase mutations of one row write. A row delete goes at {@code ts - 1}, so it removes everything older
   * but not the columns the same commit sets at {@code ts} (commit timestamps are strictly increasing, so no other
   * commit has {@code ts - 1}).
   */
  private List<Mutation> mutations(GroupRef group, long ts, Key key, RowWriteProto w) {
    byte[] row = key.row();
    byte[] token = tokens.sign(group, key);
    List<Mutation> out = new ArrayList<>();
    if (w.getDeleteRow()) {
      out.add(tagged(new Delete(row, ts - 1), token)); // its own mutation: a Delete with columns spares the rest
    }
    Delete columnDeletes = new Delete(row);
    Put put = new Put(row);
    for (ColumnProto c : w.getColumnsList()) {
      if (c.hasValue()) {
        put.addColumn(c.getFamily().toByteArray(), c.getQualifier().toByteArray(), ts, c.getValue().toByteArray());
      } else {
        columnDeletes.addColumns(c.getFamily().toByteArray(), c.getQualifier().toByteArray(), ts);
      }
    }
    if (!columnDeletes.isEmpty()) {
      out.add(tagged(columnDeletes, token));
    }
    if (!put.isEmpty()) {
      out.add(tagged(put, token));
    }
    return out;
  }

  private Mutation tagged(Mutation m, byte[] token) {
    m.setAttribute(OwnerToken.ATTRIBUTE, token);
    m.setDurability(durability);
    return m;
  }
}
