package org.gstore.coprocessor.endpoint;

import com.google.protobuf.RpcCallback;
import com.google.protobuf.RpcController;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.hbase.NotServingRegionException;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcUtils;
import org.apache.hadoop.hbase.regionserver.Region;
import org.gstore.coprocessor.txn.Requests;
import org.gstore.common.protocol.ClientRequest;
import org.gstore.common.protocol.CreateMode;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.LeaseBounds;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Reply;
import org.gstore.common.wire.RecordCodec;
import org.gstore.common.wire.generated.GStoreProtos;
import org.gstore.common.wire.generated.GStoreProtos.CreateGroupRequest;
import org.gstore.common.wire.generated.GStoreProtos.CreateGroupResponse;
import org.gstore.common.wire.generated.GStoreProtos.DeleteGroupRequest;
import org.gstore.common.wire.generated.GStoreProtos.DeleteGroupResponse;
import org.gstore.common.wire.generated.GStoreProtos.GetGroupRequest;
import org.gstore.common.wire.generated.GStoreProtos.GetGroupResponse;
import org.gstore.common.wire.generated.GStoreProtos.GroupStatProto;
import org.gstore.common.wire.generated.GStoreProtos.GroupStatsRequest;
import org.gstore.common.wire.generated.GStoreProtos.GroupStatsResponse;
import org.gstore.common.wire.generated.GStoreProtos.LeaseAnswerProto;
import org.gstore.common.wire.generated.GStoreProtos.LeaseRecordProto;
import org.gstore.common.wire.generated.GStoreProtos.RecoveryStatusRequest;
import org.gstore.common.wire.generated.GStoreProtos.RecoveryStatusResponse;
import org.gstore.common.wire.generated.GStoreProtos.TestFaultRequest;
import org.gstore.common.wire.generated.GStoreProtos.TestFaultResponse;
import org.gstore.common.wire.generated.GStoreProtos.ServerStatusProto;
import org.gstore.common.wire.generated.GStoreProtos.LeaseOutcomeProto;
import org.gstore.common.wire.generated.GStoreProtos.OutcomeProto;
import org.gstore.common.wire.generated.GStoreProtos.RenewLeasesRequest;
import org.gstore.common.wire.generated.GStoreProtos.RenewLeasesResponse;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.server.GroupLeases;
import org.gstore.coprocessor.server.GroupService;
import org.gstore.coprocessor.server.HostedRegions;
import org.gstore.coprocessor.server.StateTables;
import org.gstore.recovery.hbase.RecoveryStatusReader;
import org.gstore.coprocessor.txn.GroupCaches;

/**
 * The client's entry point, served by the region holding a group's leader row: HBase routes each call there,
 * retries it when the region moved, and applies its own authentication. A call waits for the leader's answer at most
 * {@code gstore.endpoint.wait.ms}; if creation or deletion is still running it answers PENDING and the client calls
 * again with the same request id.
 */
public final class GroupEndpoint extends GStoreProtos.GStoreService {
  /** A group's record is one cell of gstore:groups: keep it well inside HBase's default 10 MiB cell limit. */
  static final long MAX_RECORD_BYTES = 4L << 20;
  /** The shortest lease: renewals every third of it must fit in the network's and HBase's round trips. */
  /** What a member adds to its group's record besides its table and row (status, yield id, field tags). */
  private static final int MEMBER_RECORD_OVERHEAD_BYTES = 64;
  // HBase asks a coprocessor for its services before it starts it: the endpoint exists first and is attached later.
  private volatile Region region;
  private volatile GroupService server;
  private volatile Authorizer authorizer;

  void attach(Region region, GroupService server, Authorizer authorizer) {
    this.region = region;
    this.server = server;
    this.authorizer = authorizer;
  }

  @Override
  public void createGroup(RpcController controller, CreateGroupRequest request,
      RpcCallback<CreateGroupResponse> done) {
    try {
      GroupId id = Requests.groupId(request.getName(), request.getLeader());
      Set<Key> members = new HashSet<>();
      for (KeyProto k : request.getMembersList()) {
        members.add(Requests.key(k));
      }
      members.add(id.leader());
      requireLeaderHere(id.leader());
      authorizer.requireGroup(members);
      String invalid = validate(id, members);
      if (invalid != null) {
        done.run(CreateGroupResponse.newBuilder().setOutcome(OutcomeProto.INVALID).setMessage(invalid).build());
        return;
      }
      String badLease = LeaseBounds.problem(request.getLeaseMs());
      if (badLease != null) {
        done.run(CreateGroupResponse.newBuilder().setOutcome(OutcomeProto.INVALID).setMessage(badLease).build());
        return;
      }
      CreateMode mode = request.getMode() == GStoreProtos.CreateModeProto.ATOMIC
          ? CreateMode.ATOMIC : CreateMode.BEST_EFFORT;
      Reply reply = await(new ClientRequest.Create(request.getRequestId(), id, members, mode,
          request.getLeaseMs()));
      CreateGroupResponse.Builder b = CreateGroupResponse.newBuilder();
      if (reply == null) {
        b.setOutcome(OutcomeProto.PENDING);
      } else {
        Reply.Create r = (Reply.Create) reply;
        if (r.outcome() == Reply.Outcome.CREATED) {
          server.preload(id);
        }
        b.setOutcome(OutcomeProto.valueOf(r.outcome().name()));
        if (r.group() != null) {
          b.setGroup(RecordCodec.toProto(r.group()));
        }
        if (r.message() != null) {
          b.setMessage(r.message());
        }
      }
      done.run(b.build());
    } catch (IOException | IllegalArgumentException e) {
      fail(controller, e, done);
    }
  }

  @Override
  public void deleteGroup(RpcController controller, DeleteGroupRequest request,
      RpcCallback<DeleteGroupResponse> done) {
    try {
      GroupId id = Requests.groupId(request.getName(), request.getLeader());
      requireLeaderHere(id.leader());
      if (authorizer.checksThisCall()) { // the members are only needed for the check: no round trip without it
        authorizer.requireGroup(awaitGroup(id).map(g -> g.members().keySet()).orElse(Set.of(id.leader())));
      }
      ClientRequest.Delete delete = new ClientRequest.Delete(request.getRequestId(), id);
      Reply reply = await(delete.requestId(), server.delete(delete));
      DeleteGroupResponse.Builder b = DeleteGroupResponse.newBuilder();
      if (reply == null) {
        b.setOutcome(OutcomeProto.PENDING);
      } else {
        b.setOutcome(OutcomeProto.valueOf(reply.outcome().name()));
        String message = ((Reply.Delete) reply).message();
        if (message != null) {
          b.setMessage(message);
        }
      }
      done.run(b.build());
    } catch (IOException | IllegalArgumentException e) {
      fail(controller, e, done);
    }
  }

  @Override
  public void getGroup(RpcController controller, GetGroupRequest request, RpcCallback<GetGroupResponse> done) {
    try {
      GroupId id = Requests.groupId(request.getName(), request.getLeader());
      requireLeaderHere(id.leader());
      authorizer.requireRead(Set.of(id.leader()));
      Optional<GroupRecord> group = awaitGroup(id);
      if (group.isEmpty() && !server.leadsHere(id.leader())) {
        throw GroupCaches.moving(id); // the region closed after the check above: ask its next host
      }
      // Being created, or re-formed by a leader that restarted before its ACTIVE record was durable (a region
      // closing while its server cannot reach hbase:meta, or a crash): a group its creator was told CREATED is
      // found once re-formed, never reported missing.
      GroupCaches.requireFormed(id, group);
      GetGroupResponse.Builder b = GetGroupResponse.newBuilder();
      group.filter(g -> g.phase() != GroupPhase.ENDED).ifPresent(g -> b.setGroup(RecordCodec.toProto(g)));
      done.run(b.build());
    } catch (IOException | IllegalArgumentException e) {
      fail(controller, e, done);
    }
  }

  /**
   * Renews the leases of the groups in the request that this server leads, whichever of its regions holds their
   * leader rows: the client sends one call per server, to any of them.
   */
  @Override
  public void renewLeases(RpcController controller, RenewLeasesRequest request,
      RpcCallback<RenewLeasesResponse> done) {
    try {
      requireServer();
      List<GroupId> ids = new ArrayList<>(request.getGroupsCount());
      Map<GroupId, GetGroupRequest> asked = new HashMap<>();
      RenewLeasesResponse.Builder b = RenewLeasesResponse.newBuilder();
      for (GetGroupRequest g : request.getGroupsList()) {
        GroupId id = Requests.groupId(g.getName(), g.getLeader());
        try {
          // keeping a group, and so its fenced rows, alive takes what making one takes: read and write on its table
          authorizer.requireGroup(Set.of(id.leader()));
          ids.add(id);
          asked.put(id, g);
        } catch (org.apache.hadoop.hbase.security.AccessDeniedException e) {
          b.addAnswers(LeaseAnswerProto.newBuilder().setGroup(g).setOutcome(LeaseOutcomeProto.LEASE_DENIED));
        }
      }
      for (GroupLeases.Answer a : server.renewLeases(ids, request.hasHolder() ? request.getHolder() : null)) {
        LeaseAnswerProto.Builder answer = LeaseAnswerProto.newBuilder().setGroup(asked.get(a.id()))
            .setOutcome(LeaseOutcomeProto.valueOf("LEASE_" + a.outcome().name()));
        if (a.outcome() == GroupLeases.Outcome.RENEWED) {
          answer.setExpiresAt(a.expiresAt());
        }
        b.addAnswers(answer);
      }
      done.run(b.build());
    } catch (IOException | IllegalArgumentException e) {
      fail(controller, e, done);
    }
  }

  /** For operators: what this server knows of the groups it leads among those asked (one call per server). */
  @Override
  public void groupStats(RpcController controller, GroupStatsRequest request,
      RpcCallback<GroupStatsResponse> done) {
    try {
      requireServer();
      GroupStatsResponse.Builder b = GroupStatsResponse.newBuilder();
      for (GetGroupRequest g : request.getGroupsList()) {
        GroupId id = Requests.groupId(g.getName(), g.getLeader());
        authorizer.requireRead(Set.of(id.leader()));
        GroupService.GroupStat stat = server.groupStat(id);
        GroupStatProto.Builder p = GroupStatProto.newBuilder().setGroup(g).setLedHere(stat != null);
        if (stat != null) {
          p.setPhase(stat.phase().name()).setUnshipped(stat.unshipped()).setUnpersisted(stat.unpersisted())
              .setCommits(stat.commits()).setAborts(stat.aborts());
          if (stat.lease() != null) {
            p.setLease(LeaseRecordProto.parseFrom(StateTables.encodeLease(stat.lease())));
          }
        }
        b.addGroups(p);
      }
      done.run(b.build());
    } catch (IOException | IllegalArgumentException e) {
      fail(controller, e, done);
    }
  }

  /** For operators: the cluster's recovery state as this server reads it (any G-Store region answers). */
  @Override
  public void recoveryStatus(RpcController controller, RecoveryStatusRequest request,
      RpcCallback<RecoveryStatusResponse> done) {
    try {
      requireServer();
      RecoveryStatusResponse.Builder b = RecoveryStatusResponse.newBuilder();
      for (RecoveryStatusReader.ServerStatus s : server.recoveryStatus()) {
        b.addServers(ServerStatusProto.newBuilder().setServer(s.name()).setState(s.state())
            .setShippedThrough(s.shippedThrough()).setPersistedThrough(s.persistedThrough())
            .setWalFiles(s.walFiles()).setWalBytes(s.walBytes()).addAllAlerts(new java.util.TreeSet<>(s.alerts())));
      }
      done.run(b.build());
    } catch (IOException | IllegalArgumentException e) {
      fail(controller, e, done);
    }
  }

  /** Test clusters only: a fault for this region server ({@code gstore.test.faults.enabled}; refused otherwise). */
  @Override
  public void testFault(RpcController controller, TestFaultRequest request, RpcCallback<TestFaultResponse> done) {
    try {
      requireServer();
      java.util.Set<NodeId> dropTo = new java.util.HashSet<>();
      request.getDropToList().forEach(n -> dropTo.add(new NodeId(n)));
      server.testFault(dropTo, request.getSkewMs(), request.getDurationMs());
      done.run(TestFaultResponse.getDefaultInstance());
    } catch (IOException | IllegalArgumentException e) {
      fail(controller, e, done);
    }
  }

  private void requireServer() throws IOException {
    if (server == null) {
      throw new org.apache.hadoop.hbase.DoNotRetryIOException("G-Store does not run on this table's system regions");
    }
  }

  private Optional<GroupRecord> awaitGroup(GroupId id) throws IOException {
    try {
      return server.group(id).get(server.config().endpointWaitMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted");
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("G-Store could not read group state in time", e);
    }
  }

  /** The group named in a transaction call, checked to be led from this region. */
  GroupId leadHere(String name, KeyProto leader) throws IOException {
    GroupId id = Requests.groupId(name, leader);
    requireLeaderHere(id.leader());
    return id;
  }

  /**
   * Why a group cannot be created, or null. The limits keep every state row, record and protocol message within
   * what HBase and one datagram carry, so no bad request can make a state write or a send fail later.
   */
  private String validate(GroupId id, Set<Key> members) throws IOException {
    GStoreConfig config = server.config();
    int max = config.protocol().maxGroupSize();
    if (members.size() > max) {
      return "a group of " + members.size() + " rows exceeds the maximum group size of " + max
          + " (" + GStoreConfig.GROUP_MAX_SIZE + ")";
    }
    if (id.name().length() > config.maxGroupIdChars()) {
      return "a group name of " + id.name().length() + " characters exceeds the limit of "
          + config.maxGroupIdChars() + " (" + GStoreConfig.GROUP_MAX_ID_CHARS + ")";
    }
    long recordBytes = 0;
    for (Key k : members) {
      if (k.row().length > config.maxRowBytes()) {
        return "member " + k + " has a row key of " + k.row().length + " bytes, above the limit of "
            + config.maxRowBytes() + " (" + GStoreConfig.GROUP_MAX_ROW_BYTES + ")";
      }
      recordBytes += k.row().length + k.table().length() + MEMBER_RECORD_OVERHEAD_BYTES;
    }
    if (recordBytes > MAX_RECORD_BYTES) {
      return "the group's record would take about " + recordBytes + " bytes, above " + MAX_RECORD_BYTES
          + "; use fewer or shorter rows";
    }
    Set<String> checked = new HashSet<>();
    for (Key k : members) {
      if (checked.add(k.table())) {
        String problem = server.problemWith(k.table());
        if (problem != null) {
          return "member " + k + ": " + problem;
        }
      }
    }
    return null;
  }

  /**
   * The engine's answer, or null if it is still working after the wait; NOT_LEADER becomes a region move. The
   * caller has checked the leader row is here.
   */
  private Reply await(ClientRequest request) throws IOException {
    return await(request.requestId(), server.submit(request));
  }

  private Reply await(String requestId, CompletableFuture<Reply> future) throws IOException {
    try {
      Reply reply = future.get(server.config().endpointWaitMillis(), TimeUnit.MILLISECONDS);
      if (reply.outcome() == Reply.Outcome.NOT_LEADER) {
        throw new NotServingRegionException(region.getRegionInfo().getRegionNameAsString() + ": "
            + messageOf(reply));
      }
      return reply;
    } catch (TimeoutException e) {
      server.forget(requestId, future);
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted waiting for the leader");
    } catch (ExecutionException e) {
      throw new IOException("G-Store request failed: " + e.getCause().getMessage(), e.getCause());
    }
  }

  /** The group's leader row must be in this region and its state loaded; otherwise HBase retries elsewhere. */
  private void requireLeaderHere(Key leader) throws IOException {
    if (server == null) {
      throw new org.apache.hadoop.hbase.DoNotRetryIOException("G-Store does not run on this table's system regions");
    }
    if (!HostedRegions.contains(region.getRegionInfo(), leader)) {
      throw new NotServingRegionException(leader + " is not in " + region.getRegionInfo().getRegionNameAsString());
    }
    if (!server.awaitReady(region.getRegionInfo(), HostedRegions.LOAD_WAIT_MILLIS)) {
      throw new org.apache.hadoop.hbase.RegionTooBusyException(
          "G-Store is loading the group state of " + region.getRegionInfo().getRegionNameAsString());
    }
  }

  private static String messageOf(Reply reply) {
    return reply instanceof Reply.Create c ? c.message() : ((Reply.Delete) reply).message();
  }

  /** Reports {@code e} to the calling client as the call's exception. */
  static void fail(RpcController controller, Exception e, RpcCallback<?> done) {
    CoprocessorRpcUtils.setControllerException(controller,
        e instanceof IOException io ? io : new org.apache.hadoop.hbase.DoNotRetryIOException(e.getMessage(), e));
    done.run(null);
  }
}
