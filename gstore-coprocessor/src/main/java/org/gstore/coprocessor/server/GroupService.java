package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.gstore.recovery.hbase.RecoveryStatusReader;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.gstore.common.protocol.ClientRequest;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.Reply;
import org.gstore.coprocessor.config.GStoreConfig;

/** What the group endpoint needs of G-Store on its region server: group requests, and where groups are led. */
public interface GroupService {
  /** Submits a create (or another request) to the engine; the future completes with the leader's answer. */
  CompletableFuture<Reply> submit(ClientRequest request);

  /** Deletes a group: commits stop, the engine ends it, its rows are released once its commits are in HBase. */
  CompletableFuture<Reply> delete(ClientRequest.Delete request) throws IOException;

  /** Stops waiting for an answer (the caller gave up; a retry with the same request id waits anew). */
  void forget(String requestId, CompletableFuture<Reply> reply);

  /** The engine's record of a group. */
  CompletableFuture<Optional<GroupRecord>> group(GroupId id);

  /** Renews the leases of groups this server leads for {@code holder} (see {@link GroupLeases#renew}). */
  List<GroupLeases.Answer> renewLeases(List<GroupId> ids, String holder) throws IOException;

  /** What this server knows of a group it leads, for operators; null if it does not lead it. */
  GroupStat groupStat(GroupId id) throws IOException;

  /**
   * What a leader knows of one of its groups: its phase, commits not yet shipped, not yet persisted, its lease, and
   * the commits and aborts by validation of its cache here (since this server loaded it).
   */
  record GroupStat(GroupPhase phase, int unshipped, int unpersisted, GroupLeases.Lease lease, long commits,
      long aborts) {}

  /** Test clusters only: see {@link TestFaults#inject}. */
  void testFault(java.util.Set<org.gstore.common.protocol.NodeId> dropTo, long skewMillis, long durationMillis)
      throws IOException;

  /** The cluster's recovery state, as this server reads it from ZooKeeper and the WAL directory. */
  List<RecoveryStatusReader.ServerStatus> recoveryStatus() throws IOException;

  /** Loads a new group's cache in the background, so its first transaction does not wait for it. */
  void preload(GroupId id);

  /** Whether the engine serves the region's rows (G-Store calls may be answered). */
  boolean isReady(RegionInfo region);

  /**
   * {@link #isReady}, waiting at most {@code millis} while the region loads, so that a call arriving during a load
   * is answered when it ends rather than refused for all of it (see {@code RegionPhases#await}).
   */
  boolean awaitReady(RegionInfo region, long millis);

  /** Whether {@code leader} is in a region this server serves and that is not closing. */
  boolean leadsHere(Key leader);

  /** Why rows of {@code table} cannot join a group, or null (see {@link TableGuard#problemWith}). */
  String problemWith(String table) throws IOException;

  GStoreConfig config();
}
