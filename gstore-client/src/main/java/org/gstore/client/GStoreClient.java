package org.gstore.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.ServiceException;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.wire.RecordCodec;
import org.gstore.common.wire.generated.GStoreProtos.CreateGroupRequest;
import org.gstore.common.wire.generated.GStoreProtos.CreateGroupResponse;
import org.gstore.common.wire.generated.GStoreProtos.CreateModeProto;
import org.gstore.common.wire.generated.GStoreProtos.DeleteGroupRequest;
import org.gstore.common.wire.generated.GStoreProtos.DeleteGroupResponse;
import org.gstore.common.wire.generated.GStoreProtos.CommitRequest;
import org.gstore.common.wire.generated.GStoreProtos.CommitResponse;
import org.gstore.common.wire.generated.GStoreProtos.GStoreService;
import org.gstore.common.wire.generated.GStoreProtos.GStoreTxnService;
import org.gstore.common.wire.generated.GStoreProtos.ReadRequest;
import org.gstore.common.wire.generated.GStoreProtos.ReadResponse;
import org.gstore.common.wire.generated.GStoreProtos.RowVersionProto;
import org.gstore.common.wire.generated.GStoreProtos.TxnOutcomeProto;
import org.gstore.common.wire.generated.GStoreProtos.GetGroupRequest;
import org.gstore.common.wire.generated.GStoreProtos.GetGroupResponse;
import org.gstore.common.wire.generated.GStoreProtos.OutcomeProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;

/**
 * Entry point of the G-Store client library: forms, finds and dissolves key groups on an HBase cluster whose
 * tables run G-Store. Requests go to the region holding the group's leader row through HBase's coprocessor
 * endpoint, which locates it, retries when it moves and authenticates the caller like any HBase call.
 *
 * <p>Thread-safe; share one per application. {@link #close()} closes the HBase connection only if the client
 * created it.
 */
public final class GStoreClient implements Closeable {
  /** How long one create or delete may take before the client gives up (ms). */
  public static final String OPERATION_TIMEOUT = "gstore.client.operation.timeout.ms";
  /** How many times {@link KeyGroup#transact} runs a transaction that keeps conflicting. */
  public static final String TRANSACTION_ATTEMPTS = "gstore.client.txn.attempts";
  /**
   * How long {@link Transaction#commit()} keeps sending a commit that got no answer before it throws
   * {@link CommitOutcomeUnknownException} (ms). Keep it below the servers' {@code gstore.txn.outcome.retain.ms}.
   */
  public static final String COMMIT_DEADLINE = "gstore.client.commit.deadline.ms";
  /** The lease of a group whose {@link GroupSpec} sets none (ms; 0: groups live until deleted). */
  public static final String GROUP_LEASE = "gstore.group.lease.ms";
  /** This process and host ({@code pid@host}): with a client number, who renews a lease, for operators. */
  private static final String HOLDER_PREFIX = java.lang.management.ManagementFactory.getRuntimeMXBean().getName();
  private static final java.util.concurrent.atomic.AtomicLong CLIENTS = new java.util.concurrent.atomic.AtomicLong();

  private final Connection connection;
  private final boolean ownsConnection;
  private final ClientSettings settings;
  private final LeaseRenewer leases;
  private final ExecutorService async = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "gstore-client");
    t.setDaemon(true);
    return t;
  });

  private GStoreClient(Connection connection, boolean ownsConnection) {
    HBaseClientCheck.requireUsableClient();
    this.connection = connection;
    this.ownsConnection = ownsConnection;
    this.settings = ClientSettings.from(connection.getConfiguration());
    this.leases = new LeaseRenewer(connection, HOLDER_PREFIX + "#" + CLIENTS.incrementAndGet());
  }

  /** A client with its own HBase connection, made from {@code conf} and closed with the client. */
  public static GStoreClient create(Configuration conf) throws IOException {
    HBaseClientCheck.requireUsableClient(); // before a connection is opened that a refusal would leak
    return new GStoreClient(ConnectionFactory.createConnection(conf), true);
  }

  /** A client that borrows {@code connection}; the caller keeps ownership and closes it. */
  public static GStoreClient create(Connection connection) {
    return new GStoreClient(connection, false);
  }

  /** Operator tools on this client's cluster: list, describe and delete groups, read the recovery state. */
  public GStoreAdmin admin() {
    return new GStoreAdmin(this, connection);
  }

  /** Forms a group; returns when creation has terminated. */
  public KeyGroup createGroup(GroupSpec spec) throws IOException {
    if (async.isShutdown()) { // its lease would not be renewed: the group would lapse a lease after its creation
      throw new IllegalStateException("this G-Store client is closed; no group was created");
    }
    try {
      return create(spec); // on the caller's thread: a hand-over to the async pool and back cost two wake-ups
    } catch (InterruptedIOException e) {
      if (e.getClass() == InterruptedIOException.class) {
        Thread.currentThread().interrupt(); // HBase throws it without restoring the flag (a timeout is a subclass)
      }
      throw e;
    }
  }

  /** Forms a group without blocking the caller; the future fails with the exceptions of {@link #createGroup}. */
  public CompletableFuture<KeyGroup> createGroupAsync(GroupSpec spec) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return create(spec);
      } catch (IOException e) {
        throw new CompletionException(e);
      }
    }, async);
  }

  /**
   * Whether G-Store serves {@code table}: true when its first region answers G-Store's endpoint (the coprocessor
   * runs on it cluster-wide or from the table's descriptor), false when HBase reports that no such endpoint is
   * registered there. Tools use it to add the coprocessor to a table's descriptor only where the cluster does not
   * already run G-Store on every table. Other failures (no such table, cluster unreachable) are thrown.
   */
  public boolean servesTable(TableName table) throws IOException {
    try {
      getGroup(GroupId.of("gstore-probe", RowKey.of(table, new byte[] {0})));
      return true;
    } catch (GroupNotFoundException answered) {
      return true;
    } catch (IOException e) {
      if (GStoreAdmin.notGStore(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * The live group with this id; {@link GroupNotFoundException} if there is none (never created, deleted, or its
   * creation failed). A group still being created, or re-formed by a leader that restarted, is waited for within
   * HBase's client retries, so a group whose creator was told it was created is never reported missing.
   */
  public KeyGroup getGroup(GroupId id) throws IOException {
    GetGroupRequest request = GetGroupRequest.newBuilder().setName(id.name()).setLeader(proto(id.leader())).build();
    GetGroupResponse response = call(id.leader(), stub -> stub.getGroup(null, request));
    if (!response.hasGroup()) {
      throw new GroupNotFoundException("no group " + id);
    }
    GroupRecord record = RecordCodec.fromProto(response.getGroup());
    if (record.phase() != org.gstore.common.protocol.GroupPhase.ACTIVE) {
      throw new GroupNotFoundException("group " + id + " is " + record.phase().name().toLowerCase());
    }
    return held(KeyGroup.from(this, record), null);
  }

  /**
   * A group this client renews the lease of from now on, until it is closed or the group deleted.
   *
   * @param createSentAt when this client first sent the create that made it ({@code System.nanoTime()}); null if
   *     looked up
   */
  private KeyGroup held(KeyGroup group, Long createSentAt) {
    leases.hold(group, createSentAt);
    return group;
  }

  private KeyGroup create(GroupSpec spec) throws IOException {
    RowKey leader = spec.leader() != null ? spec.leader() : chooseLeader(spec);
    GroupId id = new GroupId(spec.id() != null ? spec.id() : UUID.randomUUID().toString(), leader);
    CreateGroupRequest.Builder b = CreateGroupRequest.newBuilder()
        .setRequestId(UUID.randomUUID().toString())
        .setName(id.name())
        .setLeader(proto(leader))
        .setMode(spec.isAtomic() ? CreateModeProto.ATOMIC : CreateModeProto.BEST_EFFORT)
        .setLeaseMs((spec.lease() != null ? spec.lease() : settings.defaultLease()).toMillis());
    spec.members().forEach(m -> b.addMembers(proto(m)));
    CreateGroupRequest request = b.build();
    long deadline = System.currentTimeMillis() + settings.operationTimeoutMillis();
    long firstSent = System.nanoTime(); // the group's lease cannot start before this
    while (true) {
      CreateGroupResponse response = call(leader, stub -> stub.createGroup(null, request));
      switch (response.getOutcome()) {
        case CREATED:
          return held(KeyGroup.from(this, RecordCodec.fromProto(response.getGroup())), firstSent);
        case FAILED:
          throw new GroupCreationException("group " + id + ": " + response.getMessage(),
              response.hasGroup() ? KeyGroup.refusals(RecordCodec.fromProto(response.getGroup())) : Map.of());
        case EXISTS:
          throw new GroupExistsException(response.getMessage());
        case INVALID:
          throw new GroupCreationException("group " + id + " is invalid: " + response.getMessage(), Map.of());
        case PENDING:
          if (System.currentTimeMillis() > deadline) {
            IOException notDeleted = abandon(id);
            throw new GroupCreationException("creating " + id + " took longer than " + settings.operationTimeoutMillis()
                + " ms (" + OPERATION_TIMEOUT + "); " + (notDeleted == null ? "it was deleted and holds no row"
                : "deleting it failed too (" + notDeleted.getMessage() + "), so it may still hold rows: delete"
                + " it with getGroup(id).delete() once the cluster answers"), Map.of());
          }
          break;
        default:
          throw new IOException("unexpected answer to create " + id + ": " + response.getOutcome());
      }
    }
  }

  /**
   * Deletes a group whose creation the client gave up on, so it does not linger unknown to anyone; returns why
   * that failed, or null once no row is held by it.
   */
  private IOException abandon(GroupId id) {
    try {
      deleteGroup(id);
      return null;
    } catch (GroupNotFoundException gone) {
      return null;
    } catch (IOException e) {
      return e;
    }
  }

  void deleteGroup(GroupId id) throws IOException {
    leases.release(id); // renewing while the delete runs would only be refused
    DeleteGroupRequest request = DeleteGroupRequest.newBuilder()
        .setRequestId(UUID.randomUUID().toString())
        .setName(id.name())
        .setLeader(proto(id.leader()))
        .build();
    long deadline = System.currentTimeMillis() + settings.operationTimeoutMillis();
    while (true) {
      DeleteGroupResponse response = call(id.leader(), stub -> stub.deleteGroup(null, request));
      switch (response.getOutcome()) {
        case DELETED:
          return;
        case NOT_FOUND:
          throw new GroupNotFoundException("no group " + id);
        case PENDING:
          if (System.currentTimeMillis() > deadline) {
            throw new IOException("deleting " + id + " took longer than " + settings.operationTimeoutMillis() + " ms ("
                + OPERATION_TIMEOUT + "); it is still being deleted");
          }
          break;
        default:
          throw new IOException("unexpected answer to delete " + id + ": " + response.getOutcome());
      }
    }
  }

  /** The member whose region server hosts the most members: the fewest protocol messages cross the network. */
  private RowKey chooseLeader(GroupSpec spec) throws IOException {
    Map<ServerName, List<RowKey>> byServer = new HashMap<>();
    for (RowKey m : spec.members()) {
      try (RegionLocator locator = connection.getRegionLocator(m.table())) {
        HRegionLocation location = locator.getRegionLocation(m.row());
        byServer.computeIfAbsent(location.getServerName(), s -> new ArrayList<>()).add(m);
      }
    }
    return byServer.values().stream().max((a, b) -> Integer.compare(a.size(), b.size())).orElseThrow().get(0);
  }

  /** A transaction's view: its snapshot, the leader's cache incarnation it was read from, and the rows. */
  record Snapshot(long snapshot, long incarnation, List<RowVersionProto> rows) {}

  /** Reads rows at {@code snapshot} of {@code incarnation}; a null snapshot reads the newest state. */
  Snapshot read(GroupId group, Long snapshot, long incarnation, List<RowKey> rows) throws IOException {
    ReadRequest.Builder b = ReadRequest.newBuilder().setName(group.name()).setLeader(proto(group.leader()));
    if (snapshot != null) {
      b.setSnapshot(snapshot).setIncarnation(incarnation);
    }
    rows.forEach(r -> b.addRows(proto(r)));
    ReadRequest request = b.build();
    ReadResponse response = callTxn(group.leader(), stub -> stub.read(null, request));
    switch (response.getOutcome()) {
      case OK:
        return new Snapshot(response.getSnapshot(), response.getIncarnation(), response.getRowsList());
      default:
        throw failure(group, response.getOutcome(), response.getMessage());
    }
  }

  CommitResponse commit(GroupId group, CommitRequest.Builder request) throws IOException {
    CommitRequest built = request.setName(group.name()).setLeader(proto(group.leader())).build();
    CommitResponse response = callTxn(group.leader(), stub -> stub.commit(null, built));
    if (response.getOutcome() != TxnOutcomeProto.COMMITTED) {
      throw failure(group, response.getOutcome(), response.getMessage());
    }
    return response;
  }

  private static IOException failure(GroupId group, TxnOutcomeProto outcome, String message) {
    switch (outcome) {
      case CONFLICT:
        return new TransactionConflictException(message);
      case NO_GROUP:
        return new GroupNotFoundException(message);
      case NOT_MEMBER:
        return new NotGroupMemberException(message);
      default:
        return new IOException("unexpected answer from the leader of " + group + ": " + outcome + " " + message);
    }
  }

  long transactionAttempts() {
    return settings.transactionAttempts();
  }

  long commitDeadlineMillis() {
    return settings.commitDeadlineMillis();
  }

  private interface Call<S, R> {
    R on(S stub) throws ServiceException;
  }

  private <R> R call(RowKey leader, Call<GStoreService.BlockingInterface, R> call) throws IOException {
    return invoke(leader, channel -> call.on(GStoreService.newBlockingStub(channel)));
  }

  private <R> R callTxn(RowKey leader, Call<GStoreTxnService.BlockingInterface, R> call) throws IOException {
    return invoke(leader, channel -> call.on(GStoreTxnService.newBlockingStub(channel)));
  }

  private <R> R invoke(RowKey leader, Call<org.apache.hadoop.hbase.ipc.CoprocessorRpcChannel, R> call)
      throws IOException {
    try (Table table = connection.getTable(leader.table())) {
      return call.on(table.coprocessorService(leader.row()));
    } catch (ServiceException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
    }
  }

  static KeyProto proto(RowKey k) {
    return KeyProto.newBuilder().setTable(k.table().getNameAsString()).setRow(ByteString.copyFrom(k.row())).build();
  }

  /**
   * Stops renewing the leases of the groups this client holds (they live until their leases lapse, unless
   * another client renews them) and closes the HBase connection if the client created it.
   */
  @Override
  public void close() throws IOException {
    leases.close();
    async.shutdown();
    try {
      async.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (ownsConnection) {
      connection.close();
    }
  }
}
