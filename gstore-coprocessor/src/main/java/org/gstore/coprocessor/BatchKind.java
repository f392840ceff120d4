package org.gstore.coprocessor;

import java.util.Optional;
import org.apache.hadoop.hbase.ipc.RpcCall;
import org.apache.hadoop.hbase.ipc.RpcServer;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MultiRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.RegionAction;

/**
 * Tells, inside a region observer's batch hook, whether HBase honours a failed status set on one operation of the
 * batch. It does only on the non-atomic path of a client's {@code multi} call ({@code Table.batch}, {@code
 * put(List)}, a {@code BufferedMutator}): there each operation's status becomes its own result. On the atomic paths
 * (mutateRow, an atomic or conditional region action, {@code MultiRowMutationEndpoint}, a single put or delete)
 * HBase reports the batch as applied whatever a status says, so a refused write would look applied; those must be
 * refused by throwing, which fails the whole batch.
 *
 * <p>The hook does not learn which path called it, so this reads the request being served: only a {@code multi}
 * request none of whose region actions is atomic or conditional, and none of whose actions calls an endpoint,
 * counts. Anything else counts as atomic, the safe side: another request, a call made by the server itself, a
 * multi mixing atomic and plain actions, and a multi carrying an endpoint call ({@code
 * Table.batchCoprocessorService}), since the endpoint runs inside the plain path and may write atomically
 * ({@code MultiRowMutationEndpoint}), ignoring every status.
 */
final class BatchKind {
  private BatchKind() {}

  /** Whether the batch being served may fail some of its operations and apply the others. */
  static boolean perOperationStatusHonoured() {
    Optional<RpcCall> call = RpcServer.getCurrentCall();
    if (call.isEmpty() || !(call.get().getParam() instanceof MultiRequest multi)) {
      return false;
    }
    for (RegionAction action : multi.getRegionActionList()) {
      if (action.getAtomic() || action.hasCondition()
          || action.getActionList().stream().anyMatch(a -> a.hasServiceCall())) {
        return false;
      }
    }
    return true;
  }
}
