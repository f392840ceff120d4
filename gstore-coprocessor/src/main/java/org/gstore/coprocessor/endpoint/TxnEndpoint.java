package org.gstore.coprocessor.endpoint;

import com.google.protobuf.RpcCallback;
import com.google.protobuf.RpcController;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.gstore.coprocessor.txn.Requests;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.generated.GStoreProtos;
import org.gstore.common.wire.generated.GStoreProtos.CommitRequest;
import org.gstore.common.wire.generated.GStoreProtos.CommitResponse;
import org.gstore.common.wire.generated.GStoreProtos.ReadRequest;
import org.gstore.common.wire.generated.GStoreProtos.ReadResponse;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.gstore.coprocessor.txn.TransactionManager;

/**
 * Transactions on a group, served by the region holding its leader row: reads of the leader's cache at a snapshot,
 * and commits (see {@link TransactionManager}).
 */
public final class TxnEndpoint extends GStoreProtos.GStoreTxnService {
  private final GroupEndpoint groups;

  public TxnEndpoint(GroupEndpoint groups) {
    this.groups = groups;
  }

  private static List<Key> keys(List<KeyProto> protos) {
    List<Key> keys = new ArrayList<>(protos.size());
    protos.forEach(k -> keys.add(Requests.key(k)));
    return keys;
  }

  @Override
  public void read(RpcController controller, ReadRequest request, RpcCallback<ReadResponse> done) {
    try {
      GroupId id = groups.leadHere(request.getName(), request.getLeader());
      groups.authorizer().requireRead(keys(request.getRowsList()));
      TransactionManager.ReadResult r = groups.server().transactions().read(id,
          request.hasSnapshot() ? request.getSnapshot() : null, request.getIncarnation(), request.getRowsList());
      ReadResponse.Builder b = ReadResponse.newBuilder().setOutcome(r.outcome()).setSnapshot(r.snapshot())
          .setIncarnation(r.incarnation()).addAllRows(r.rows());
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
      GroupId id = groups.leadHere(request.getName(), request.getLeader());
      List<KeyProto> read = new ArrayList<>();
      request.getReadsList().forEach(r -> read.add(r.getKey()));
      groups.authorizer().requireRead(keys(read));
      groups.authorizer().requireWrite(request.getWritesList());
      done.run(groups.server().transactions().commit(id, request.getTxnId(), request.getIncarnation(),
          request.getReadsList(), request.getWritesList()));
    } catch (IOException | IllegalArgumentException e) {
      GroupEndpoint.fail(controller, e, done);
    }
  }
}
