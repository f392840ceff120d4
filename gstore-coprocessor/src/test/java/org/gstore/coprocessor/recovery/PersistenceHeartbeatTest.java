package org.gstore.coprocessor.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.coprocessor.wal.UpdateShipper;
import org.gstore.coprocessor.wal.UpdateShipper.Shipment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The heartbeat of the production code ({@link PersistenceHeartbeat}, {@link UpdateShipper}) over an in-memory
 * claim store and an in-memory HBase whose servers lose what they did not sync when they crash. The invariant after
 * every step: each acknowledged commit is persisted in HBase or still held by its leader's shipper.
 */
@Timeout(30)
class PersistenceHeartbeatTest {
  private static final GroupRef GROUP =
      new GroupRef(new GroupId("g", Key.of("t", Bytes.toBytes("leader"))), new Uid(new NodeId("a"), 1));
  private static final String LEADER = "leader,16020,1";
  private static final String MEMBER = "member,16020,1";
  private static final String TAKEOVER = "takeover,16020,1";

  private final InMemoryClaims claims = new InMemoryClaims();
  /** Per server, commits it took and has not synced (lost if it crashes). */
  private final Map<String, Set<Long>> memstores = new HashMap<>();
  private final Set<Long> persisted = new HashSet<>();
  private final Set<Long> acknowledged = new HashSet<>();
  private final List<UpdateShipper> shippers = new ArrayList<>();
  /** The server hosting the member row now. */
  private volatile String host = MEMBER;

  @AfterEach
  void closeShippers() {
    shippers.forEach(UpdateShipper::close);
  }

  @Test
  void aLeaderRestartedUnderTheSameServerNameIsNotCoveredByClaimsForItsPredecessor() {
    start(MEMBER);
    start(LEADER);
    PersistenceHeartbeat member = heartbeat(MEMBER, LogId.of(MEMBER, 1), idleShipper());

    UpdateShipper first = shipper();
    PersistenceHeartbeat firstLeader = heartbeat(LEADER, LogId.of(LEADER, 1), first);
    commit(first, 1, 5);
    firstLeader.run();
    member.run(); // claims the first instance's shipments 0..4
    firstLeader.run();
    assertThat(first.unpersistedCount()).isZero();

    // G-Store stops on the leader's server (its last G-Store region moved away) and starts again: the new
    // instance numbers its shipments from 0 again, under the same server name
    first.close();
    UpdateShipper second = shipper();
    PersistenceHeartbeat secondLeader = heartbeat(LEADER, LogId.of(LEADER, 2), second);
    commit(second, 6, 3);
    secondLeader.run(); // the member's claim still says 4, for the predecessor's shipments
    assertThat(second.unpersistedCount()).as("held until the member claims them").isEqualTo(3);
    assertEveryAcknowledgedCommitIsPersistedOrHeld();

    crash(MEMBER, TAKEOVER);
    secondLeader.run(); // sees the member dead: ships again what it had not claimed
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> memstores.get(TAKEOVER).size() == 3);
    assertEveryAcknowledgedCommitIsPersistedOrHeld();
    heartbeat(TAKEOVER, LogId.of(TAKEOVER, 1), idleShipper()).run();
    assertThat(persisted).containsAll(acknowledged);
  }

  @Test
  void aServerThatStopsGStoreCleanlyStopsHoldingLeadersBack() {
    start(MEMBER);
    start(LEADER);
    start(TAKEOVER); // registered, then G-Store stops there while the region server runs on
    UpdateShipper leader = shipper();
    PersistenceHeartbeat leaderBeat = heartbeat(LEADER, LogId.of(LEADER, 1), leader);
    commit(leader, 1, 4);
    leaderBeat.run();
    heartbeat(MEMBER, LogId.of(MEMBER, 1), idleShipper()).run();
    leaderBeat.run();
    assertThat(leader.unpersistedCount()).as("the silent registered server pins them").isEqualTo(4);

    claims.unregister(TAKEOVER);
    leaderBeat.run();
    assertThat(leader.unpersistedCount()).isZero();
    assertEveryAcknowledgedCommitIsPersistedOrHeld();
  }

  private void start(String server) {
    claims.live.add(server);
    claims.register(server);
    memstores.put(server, new HashSet<>());
  }

  private void crash(String server, String takeover) {
    claims.live.remove(server);
    memstores.get(server).clear(); // what it had not synced is gone
    start(takeover);
    host = takeover;
  }

  private UpdateShipper shipper() {
    UpdateShipper s = new UpdateShipper(batch -> {
      synchronized (this) {
        batch.forEach(sh -> memstores.get(host).add(sh.commitTs()));
      }
    }, batch -> {
      synchronized (this) {
        batch.forEach(sh -> persisted.add(sh.commitTs()));
      }
    }, false, 1, 0);
    shippers.add(s);
    return s;
  }

  private UpdateShipper idleShipper() {
    return shipper();
  }

  private PersistenceHeartbeat heartbeat(String server, String log, UpdateShipper shipper) {
    return new PersistenceHeartbeat(server, log, claims, () -> {
      synchronized (this) {
        persisted.addAll(memstores.get(server));
        memstores.get(server).clear();
      }
    }, shipper, (neededAbove, retain) -> 0, System::currentTimeMillis, 600_000);
  }

  private void commit(UpdateShipper shipper, long firstTs, int count) {
    long through = shipper.shippedThrough() + count;
    for (long ts = firstTs; ts < firstTs + count; ts++) {
      acknowledged.add(ts);
      shipper.ship(new Shipment(GROUP, ts, List.of(), new SharedWal.Position(0, ts)));
    }
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.shippedThrough() == through);
  }

  private synchronized void assertEveryAcknowledgedCommitIsPersistedOrHeld() {
    long held = shippers.stream().filter(s -> !s.isClosed()).mapToLong(UpdateShipper::pendingCount).sum();
    Set<Long> missing = new HashSet<>(acknowledged);
    missing.removeAll(persisted);
    assertThat(missing.size()).as("acknowledged commits neither persisted nor held: %s", missing)
        .isLessThanOrEqualTo((int) held);
  }
}
