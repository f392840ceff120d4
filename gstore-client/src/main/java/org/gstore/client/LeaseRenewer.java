package org.gstore.client;

import com.google.protobuf.ServiceException;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.gstore.common.wire.generated.GStoreProtos.GStoreService;
import org.gstore.common.wire.generated.GStoreProtos.GetGroupRequest;
import org.gstore.common.wire.generated.GStoreProtos.LeaseAnswerProto;
import org.gstore.common.wire.generated.GStoreProtos.RenewLeasesRequest;
import org.gstore.common.wire.generated.GStoreProtos.RenewLeasesResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of the groups a {@link GStoreClient} created or looked up, while it is open: every third of
 * the shortest lease it holds, one call per region server that leads any of them (sent to one of their leader
 * rows; the server answers for all the groups it leads). A group whose leader moved is located afresh next round;
 * one that is gone (deleted, expired) or has no lease is dropped. A failed round is logged and the next one tries
 * again: a lease outlives two missed rounds.
 */
final class LeaseRenewer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseRenewer.class);
  private static final long MIN_PERIOD_MILLIS = 100;

  private final Connection connection;
  private final Map<GroupId, Duration> held = new ConcurrentHashMap<>();
  /** Groups whose leader was not where the cached location said: located afresh next round. */
  private final Set<GroupId> relocate = ConcurrentHashMap.newKeySet();
  private final ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1, r -> {
    Thread t = new Thread(r, "gstore-lease-renewer");
    t.setDaemon(true);
    return t;
  });
  private boolean started;

  LeaseRenewer(Connection connection) {
    this.connection = connection;
  }

  /** Renews {@code group}'s lease from now on, if it has one. */
  void hold(KeyGroup group) {
    if (group.lease().isZero()) {
      return;
    }
    held.put(group.id(), group.lease());
    synchronized (this) {
      if (!started && !thread.isShutdown()) {
        started = true;
        thread.schedule(this::roundSurvivingAnything, periodMillis(), TimeUnit.MILLISECONDS);
      }
    }
  }

  /** Stops renewing {@code id} (it was deleted). */
  void release(GroupId id) {
    held.remove(id);
  }

  private long periodMillis() {
    long shortest = held.values().stream().mapToLong(Duration::toMillis).min().orElse(60_000);
    return Math.max(MIN_PERIOD_MILLIS, shortest / 3);
  }

  private void roundSurvivingAnything() {
    try {
      round();
    } catch (RuntimeException e) { // NOPMD: the renewer must outlive anything one round meets
      LOG.warn("G-Store could not renew group leases this round; retrying", e);
    } finally {
      if (!thread.isShutdown()) {
        thread.schedule(this::roundSurvivingAnything, periodMillis(), TimeUnit.MILLISECONDS);
      }
    }
  }

  /** One renewal of every held lease, one call per leader server. */
  void round() {
    Map<ServerName, List<GroupId>> byServer = new HashMap<>();
    for (GroupId id : List.copyOf(held.keySet())) {
      try {
        byServer.computeIfAbsent(leaderServer(id), s -> new ArrayList<>()).add(id);
      } catch (IOException e) {
        LOG.debug("cannot locate the leader of group {} ({}); next round", id, e.toString());
      }
    }
    byServer.forEach((server, ids) -> {
      try {
        renew(ids);
      } catch (IOException e) {
        LOG.warn("G-Store could not renew the leases of {} groups led by {}; next round ({})", ids.size(), server,
            e.toString());
        relocate.addAll(ids);
      }
    });
  }

  private ServerName leaderServer(GroupId id) throws IOException {
    RowKey leader = id.leader();
    try (RegionLocator locator = connection.getRegionLocator(leader.table())) {
      return locator.getRegionLocation(leader.row(), relocate.remove(id)).getServerName();
    }
  }

  private void renew(List<GroupId> ids) throws IOException {
    RenewLeasesRequest.Builder b = RenewLeasesRequest.newBuilder();
    ids.forEach(id -> b.addGroups(GetGroupRequest.newBuilder().setName(id.name())
        .setLeader(GStoreClient.proto(id.leader()))));
    RowKey via = ids.get(0).leader();
    RenewLeasesResponse response;
    try (Table table = connection.getTable(via.table())) {
      response = GStoreService.newBlockingStub(table.coprocessorService(via.row())).renewLeases(null, b.build());
    } catch (ServiceException e) {
      throw new IOException(e.getMessage(), e.getCause() != null ? e.getCause() : e);
    }
    for (LeaseAnswerProto a : response.getAnswersList()) {
      GroupId id = new GroupId(a.getGroup().getName(), RowKey.of(org.apache.hadoop.hbase.TableName.valueOf(
          a.getGroup().getLeader().getTable()), a.getGroup().getLeader().getRow().toByteArray()));
      switch (a.getOutcome()) {
        case LEASE_RENEWED -> { }
        case LEASE_NOT_HERE -> relocate.add(id);
        case LEASE_NO_GROUP, LEASE_NO_LEASE -> held.remove(id);
        default -> LOG.warn("unexpected lease answer for group {}: {}", id, a.getOutcome());
      }
    }
  }

  /** Stops renewing; deletes nothing: the groups live until their leases lapse. */
  @Override
  public void close() {
    thread.shutdownNow();
  }
}
