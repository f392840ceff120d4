package org.gstore.client;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.ServiceException;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.exceptions.UnknownProtocolException;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.MemberState;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.RecordCodec;
import org.gstore.common.wire.StateLayout;
import org.gstore.common.wire.StateRows;
import org.gstore.common.wire.generated.GStoreProtos.GStoreService;
import org.gstore.common.wire.generated.GStoreProtos.GroupStatProto;
import org.gstore.common.wire.generated.GStoreProtos.GroupStatsRequest;
import org.gstore.common.wire.generated.GStoreProtos.GroupStatsResponse;
import org.gstore.common.wire.generated.GStoreProtos.LeaseRecordProto;
import org.gstore.common.wire.generated.GStoreProtos.RecoveryStatusRequest;
import org.gstore.common.wire.generated.GStoreProtos.RecoveryStatusResponse;
import org.gstore.common.wire.generated.GStoreProtos.ServerStatusProto;

/**
 * Operator tools, like HBase's {@code Admin}: the groups of the cluster and what their leaders know of them, the
 * deletion of a group an application left behind, and the recovery state. Obtained from
 * {@link GStoreClient#admin()}; uses the client's connection and needs read access to {@code gstore:groups} (and,
 * to delete a group, what {@link KeyGroup#delete()} needs). {@code gstore groups} and {@code gstore status} use it.
 */
public final class GStoreAdmin implements Closeable {
  private final GStoreClient client;
  private final Connection connection;
  private final LeaderServers servers;

  GStoreAdmin(GStoreClient client, Connection connection) {
    this.client = client;
    this.connection = connection;
    this.servers = new LeaderServers(connection);
  }

  /**
   * Every group being created, active or being deleted, read from {@code gstore:groups}, with what its leader
   * knows (one call per leader server; a leader that does not answer leaves its groups' counts unknown).
   */
  public List<GroupInfo> listGroups() throws IOException {
    List<Result> rows = new ArrayList<>();
    try (Table groups = connection.getTable(StateLayout.GROUPS);
        ResultScanner scanner = groups.getScanner(new Scan().addColumn(StateLayout.FAMILY, StateLayout.RECORD)
            .addColumn(StateLayout.FAMILY, StateLayout.LEASE))) {
      for (Result r = scanner.next(); r != null; r = scanner.next()) {
        rows.add(r);
      }
    }
    return describe(rows);
  }

  /** One group, as {@link #listGroups()} shows it; {@link GroupNotFoundException} if it is not live. */
  public GroupInfo describeGroup(GroupId id) throws IOException {
    Result row;
    try (Table groups = connection.getTable(StateLayout.GROUPS)) {
      row = groups.get(new Get(StateRows.group(id.toProtocol())).addColumn(StateLayout.FAMILY, StateLayout.RECORD)
          .addColumn(StateLayout.FAMILY, StateLayout.LEASE));
    }
    List<GroupInfo> found = describe(row.isEmpty() ? List.of() : List.of(row));
    if (found.isEmpty()) {
      throw new GroupNotFoundException("no live group " + id);
    }
    return found.get(0);
  }

  /**
   * Deletes a group, exactly as {@link KeyGroup#delete()} does: returns once its commits are in HBase and every
   * member takes plain writes again.
   */
  public void deleteGroup(GroupId id) throws IOException {
    client.deleteGroup(id);
  }

  /**
   * The cluster's recovery state: every region server recovery knows of, its thresholds, WAL and alerts, as a
   * region server running G-Store reads them from ZooKeeper and the WAL directory (the first table whose first
   * region answers is asked).
   */
  public RecoveryStatus recoveryStatus() throws IOException {
    IOException last = null;
    try (Admin admin = connection.getAdmin()) {
      for (TableDescriptor t : admin.listTableDescriptors()) {
        if (t.getTableName().isSystemTable()
            || StateLayout.NAMESPACE.equals(t.getTableName().getNamespaceAsString())) {
          continue;
        }
        try (Table table = connection.getTable(t.getTableName())) {
          RecoveryStatusResponse r = GStoreService.newBlockingStub(table.coprocessorService(
              HConstants.EMPTY_START_ROW)).recoveryStatus(null, RecoveryStatusRequest.getDefaultInstance());
          return status(r);
        } catch (ServiceException | IOException e) {
          if (!notGStore(e)) {
            last = e instanceof IOException io ? io : new IOException(e.getMessage(), e.getCause());
          }
        }
      }
    }
    throw new IOException("no table of this cluster answered as G-Store" + (last == null ? "" : ": " + last), last);
  }

  /** Nothing to close: the admin uses its client's connection. */
  @Override
  public void close() {}

  private List<GroupInfo> describe(List<Result> rows) throws IOException {
    Map<GroupId, GroupRecord> records = new HashMap<>();
    Map<GroupId, Long> since = new HashMap<>();
    Map<GroupId, LeaseRecordProto> durableLeases = new HashMap<>();
    List<GroupId> ids = new ArrayList<>();
    for (Result r : rows) {
      byte[] value = r.getValue(StateLayout.FAMILY, StateLayout.RECORD);
      if (value == null) {
        continue; // a lease left behind by a renewal that raced the group's end
      }
      GroupRecord record = RecordCodec.decodeGroup(value);
      if (record.phase() == GroupPhase.ENDED) {
        continue;
      }
      GroupId id = GroupId.of(record.id().name(), RowKey.of(record.id().leader()));
      ids.add(id);
      records.put(id, record);
      Cell cell = r.getColumnLatestCell(StateLayout.FAMILY, StateLayout.RECORD);
      since.put(id, cell.getTimestamp());
      LeaseRecordProto lease = lease(r.getValue(StateLayout.FAMILY, StateLayout.LEASE));
      if (lease != null && DatagramCodec.fromProto(lease.getGroup()).equals(record.group())) {
        durableLeases.put(id, lease);
      }
    }
    Map<GroupId, String> leaderServers = new HashMap<>();
    Map<GroupId, GroupStatProto> stats = new HashMap<>();
    askLeaders(ids, false, leaderServers, stats);
    List<GroupId> unanswered = ids.stream().filter(id -> !stats.containsKey(id) || !stats.get(id).getLedHere())
        .toList();
    if (!unanswered.isEmpty()) { // a cached location may be stale (the leader moved): locate those afresh, once
      askLeaders(unanswered, true, leaderServers, stats);
    }
    List<GroupInfo> infos = new ArrayList<>();
    for (GroupId id : ids) {
      GroupRecord record = records.get(id);
      GroupStatProto stat = stats.get(id);
      boolean known = stat != null && stat.getLedHere();
      String state = known && stat.hasPhase() ? stat.getPhase() : record.phase().name();
      if (state.equals(GroupPhase.ENDED.name())) {
        continue; // its leader ended it; gstore:groups says so a moment later
      }
      LeaseRecordProto lease = known && stat.hasLease()
          && DatagramCodec.fromProto(stat.getLease().getGroup()).equals(record.group())
          ? stat.getLease() : durableLeases.get(id);
      infos.add(new GroupInfo(id, state, rows(record, MemberState.Status.JOINED),
          rows(record, MemberState.Status.REFUSED), leaderServers.get(id), Instant.ofEpochMilli(since.get(id)),
          Duration.ofMillis(record.leaseMillis()),
          lease == null ? null : Instant.ofEpochMilli(lease.getExpiresAt()),
          lease == null || !lease.hasHolder() ? null : lease.getHolder(),
          known ? stat.getUnshipped() : -1, known ? stat.getUnpersisted() : -1, known ? stat.getCommits() : -1,
          known ? stat.getAborts() : -1));
    }
    return infos;
  }

  /**
   * Asks the leader servers of {@code ids} (one call each) what they know; a leader that does not answer leaves
   * its groups unknown.
   */
  private void askLeaders(List<GroupId> ids, boolean relocate, Map<GroupId, String> leaderServers,
      Map<GroupId, GroupStatProto> stats) {
    for (Map.Entry<ServerName, List<GroupId>> e : servers.byServer(ids, id -> relocate).entrySet()) {
      e.getValue().forEach(id -> leaderServers.put(id, e.getKey().getServerName()));
      GroupStatsRequest.Builder request = GroupStatsRequest.newBuilder();
      e.getValue().forEach(id -> request.addGroups(LeaderServers.request(id)));
      try {
        GroupStatsResponse response = servers.call(e.getValue(), s -> s.groupStats(null, request.build()));
        response.getGroupsList().forEach(g -> stats.put(LeaderServers.id(g.getGroup()), g));
      } catch (IOException unreachable) {
        // this leader's groups are shown with unknown counts
      }
    }
  }

  private static Set<RowKey> rows(GroupRecord record, MemberState.Status status) {
    Set<RowKey> rows = new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
    record.members(status).forEach(k -> rows.add(RowKey.of(k)));
    return rows;
  }

  private static LeaseRecordProto lease(byte[] value) {
    if (value == null) {
      return null;
    }
    try {
      return LeaseRecordProto.parseFrom(value);
    } catch (InvalidProtocolBufferException e) {
      return null;
    }
  }

  private static RecoveryStatus status(RecoveryStatusResponse r) {
    List<RecoveryStatus.Server> list = new ArrayList<>();
    for (ServerStatusProto s : r.getServersList()) {
      list.add(new RecoveryStatus.Server(s.getServer(), s.getState(), s.getShippedThrough(),
          s.getPersistedThrough(), s.getWalFiles(), s.getWalBytes(), Set.copyOf(s.getAlertsList())));
    }
    return new RecoveryStatus(List.copyOf(list));
  }


  /** Whether the failure says the table does not run G-Store (no such endpoint there). */
  static boolean notGStore(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof UnknownProtocolException
          || String.valueOf(t.getMessage()).contains("No registered coprocessor service found")) {
        return true;
      }
    }
    return false;
  }
}
