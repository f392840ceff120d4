package org.gstore.client;

import com.google.protobuf.ServiceException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.gstore.common.wire.generated.GStoreProtos.GStoreService;
import org.gstore.common.wire.generated.GStoreProtos.GetGroupRequest;

/**
 * Calls about many groups, one per region server that leads any of them: a server answers for every group it
 * leads, whichever of its regions the call reaches (lease renewals, operator statistics).
 */
final class LeaderServers {
  /** One call to one server's G-Store group service. */
  interface Call<R> {
    R on(GStoreService.BlockingInterface service) throws ServiceException;
  }

  private final Connection connection;

  LeaderServers(Connection connection) {
    this.connection = connection;
  }

  /**
   * The groups by the server hosting their leader rows, as HBase's client locates them (afresh for those
   * {@code relocate} accepts); a group that cannot be located is left out.
   */
  Map<ServerName, List<GroupId>> byServer(Collection<GroupId> ids, Predicate<GroupId> relocate) {
    Map<ServerName, List<GroupId>> byServer = new LinkedHashMap<>();
    for (GroupId id : ids) {
      try (RegionLocator locator = connection.getRegionLocator(id.leader().table())) {
        ServerName server = locator.getRegionLocation(id.leader().row(), relocate.test(id)).getServerName();
        byServer.computeIfAbsent(server, s -> new ArrayList<>()).add(id);
      } catch (IOException e) {
        // left out: the caller's next round, or its report, says so
      }
    }
    return byServer;
  }

  /** Calls the server that hosts the leader row of {@code ids.get(0)} (one of the groups it leads). */
  <R> R call(List<GroupId> ids, Call<R> call) throws IOException {
    RowKey via = ids.get(0).leader();
    try (Table table = connection.getTable(via.table())) {
      return call.on(GStoreService.newBlockingStub(table.coprocessorService(via.row())));
    } catch (ServiceException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
    }
  }

  static GetGroupRequest request(GroupId id) {
    return GetGroupRequest.newBuilder().setName(id.name()).setLeader(GStoreClient.proto(id.leader())).build();
  }

  static GroupId id(GetGroupRequest g) {
    return new GroupId(g.getName(), RowKey.of(org.apache.hadoop.hbase.TableName.valueOf(g.getLeader().getTable()),
        g.getLeader().getRow().toByteArray()));
  }
}
