package org.gstore.coprocessor.endpoint;

import com.google.protobuf.RpcCallback;
import com.google.protobuf.RpcController;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.Columns;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.CommitRequest;
import org.gstore.common.wire.generated.GStoreProtos.CommitResponse;
import org.gstore.common.wire.generated.GStoreProtos.LoadRowsRequest;
import org.gstore.common.wire.generated.GStoreProtos.LoadRowsResponse;
import org.gstore.common.wire.generated.GStoreProtos.ReadRequest;
import org.gstore.common.wire.generated.GStoreProtos.ReadResponse;
import org.gstore.common.wire.generated.GStoreProtos.ReadStampProto;
import org.gstore.common.wire.generated.GStoreProtos.RowVersionProto;
import org.gstore.common.wire.generated.GStoreProtos.TxnOutcomeProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.gstore.coprocessor.txn.CommitOutcome;
import org.gstore.coprocessor.txn.LocalRows;
import org.gstore.coprocessor.txn.ReadResult;
import org.gstore.coprocessor.txn.ReadStamp;
import org.gstore.coprocessor.txn.Requests;
import org.gstore.coprocessor.txn.RowState;
import org.gstore.coprocessor.txn.TransactionManager;

/**
 * Transactions on a group, served by the region holding its leader row: reads of the leader's cache at a snapshot,
 * and commits (see {@link TransactionManager}); and, for a leader loading a group's cache, the rows this server
 * hosts. Translates between the wire's protobufs and the manager's types.
 */
public final class TxnEndpoint extends GStoreProtos.GStoreTxnService {
  // HBase asks a coprocessor for its services before it starts it: the endpoint exists first and is attached later.
  private volatile TransactionManager transactions;
  private volatile LeaderCheck leaders = (name, leader) -> {
    throw new DoNotRetryIOException("G-Store does not run on this table's system regions");
  };
  private volatile Authorizer authorizer;
  private volatile LocalRows localRows;

  void attach(TransactionManager transactions, LocalRows localRows, LeaderCheck leaders, Authorizer authorizer) {
    this.transactions = transactions;
    this.authorizer = authorizer;
    this.localRows = localRows; // after the authorizer: it opens LoadRows
    this.leaders = leaders; // last: it opens the gate
  }

  @Override
  public void read(RpcController controller, ReadRequest request, RpcCallback<ReadResponse> done) {
    try {
      GroupId id = leaders.leadHere(request.getName(), request.getLeader());
      List<Key> keys = keys(request.getRowsList());
      authorizer.requireRead(keys);
      ReadResult r = transactions.read(id, request.hasSnapshot() ? request.getSnapshot() : null,
          request.getIncarnation(), keys);
      ReadResponse.Builder b = ReadResponse.newBuilder().setOutcome(TxnOutcomeProto.valueOf(r.outcome().name()))
          .setSnapshot(r.snapshot()).setIncarnation(r.incarnation());
      for (int i = 0; i < r.rows().size(); i++) {
        b.addRows(toProto(request.getRows(i), r.rows().get(i)));
      }
      if (r.message() != null) {
        b.setMessage(r.message());
      }
      done.run(b.build());
    } catch (IOException | IllegalArgumentException e) {
      GroupEndpoint.fail(controller, e, done);
    }
  }

  @Override
  public void commit(RpcController controller, CommitRequest request, RpcCallback<CommitResponse> done) {
    try {
      GroupId id = leaders.leadHere(request.getName(), request.getLeader());
      List<ReadStamp> reads = new ArrayList<>(request.getReadsCount());
      List<Key> read = new ArrayList<>(request.getReadsCount());
      for (ReadStampProto r : request.getReadsList()) {
        Key key = Requests.key(r.getKey());
        reads.add(new ReadStamp(key, r.getVersion()));
        read.add(key);
      }
      CommitOutcome outcome = transactions.commit(id, request.getTxnId(), request.getIncarnation(),
          request.getSeenTs(), reads, request.getWritesList(), () -> {
            authorizer.requireRead(read);
            authorizer.requireWrite(request.getWritesList());
          });
      CommitResponse.Builder b = CommitResponse.newBuilder()
          .setOutcome(TxnOutcomeProto.valueOf(outcome.outcome().name())).setCommitTs(outcome.commitTs())
          .setIncarnation(outcome.incarnation());
      if (outcome.message() != null) {
        b.setMessage(outcome.message());
      }
      done.run(b.build());
    } catch (IOException | IllegalArgumentException e) {
      GroupEndpoint.fail(controller, e, done);
    }
  }

  /**
   * A leader loading a group's cache reads the rows this server hosts (see {@link LocalRows}); with READ on their
   * tables, as a plain get would need. Any region of the server answers for all of them.
   */
  @Override
  public void loadRows(RpcController controller, LoadRowsRequest request, RpcCallback<LoadRowsResponse> done) {
    try {
      LocalRows rows = localRows;
      if (rows == null) { // the leader reads them through HBase's client
        throw new DoNotRetryIOException("G-Store does not serve this region (yet)");
      }
      if (request.getRowsCount() > LocalRows.MAX_ROWS) {
        throw new DoNotRetryIOException("LoadRows of " + request.getRowsCount() + " rows; at most "
            + LocalRows.MAX_ROWS);
      }
      List<Key> keys = keys(request.getRowsList());
      authorizer.requireRead(keys);
      LocalRows.Read read = rows.read(keys);
      LoadRowsResponse.Builder b = LoadRowsResponse.newBuilder();
      read.rows().forEach((key, row) -> b.addRows(toProto(DatagramCodec.toProto(key), row)));
      read.elsewhere().forEach(key -> b.addElsewhere(DatagramCodec.toProto(key)));
      done.run(b.build());
    } catch (IOException | IllegalArgumentException e) {
      GroupEndpoint.fail(controller, e, done);
    }
  }

  private static List<Key> keys(List<KeyProto> protos) {
    List<Key> keys = new ArrayList<>(protos.size());
    protos.forEach(k -> keys.add(Requests.key(k)));
    return keys;
  }

  private static RowVersionProto toProto(KeyProto key, RowState state) {
    RowVersionProto.Builder row = RowVersionProto.newBuilder().setKey(key).setVersion(state.version());
    state.columns().forEach((c, v) -> row.addColumns(ColumnProto.newBuilder()
        .setFamily(Columns.family(c)).setQualifier(Columns.qualifier(c)).setValue(v)));
    return row.build();
  }
}
