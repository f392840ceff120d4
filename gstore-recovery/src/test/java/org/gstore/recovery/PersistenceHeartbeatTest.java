package org.gstore.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The heartbeat of the production code ({@link PersistenceHeartbeat}, {@link ShipmentLedger}) over an in-memory
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
  private final List<ShipmentLedger> ledgers = new ArrayList<>();
  /** Commits the ledgers asked to ship again, shipped at the next {@link #shipAgain}. */
  private final Map<ShipmentLedger, List<Shipment>> outbox = new HashMap<>();
  /** The server hosting the member row now. */
  private String host = MEMBER;

  @Test
  void aLeaderRestartedUnderTheSameServerNameIsNotCoveredByClaimsForItsPredecessor() {
    start(MEMBER);
    start(LEADER);
    PersistenceHeartbeat member = heartbeat(MEMBER, LogId.of(MEMBER, 1), idleShipper());

    ShipmentLedger first = shipper();
    PersistenceHeartbeat firstLeader = heartbeat(LEADER, LogId.of(LEADER, 1), first);
    commit(first, 1, 5);
    firstLeader.run();
    member.run(); // claims the first instance's shipments 0..4
    firstLeader.run();
    assertThat(first.unpersistedCount()).isZero();

    // G-Store stops on the leader's server (its last G-Store region moved away) and starts again: the new
    // instance numbers its shipments from 0 again, under the same server name
    ledgers.remove(first); // gone with its instance: its WAL is replayed, not shipped again
    ShipmentLedger second = shipper();
    PersistenceHeartbeat secondLeader = heartbeat(LEADER, LogId.of(LEADER, 2), second);
    commit(second, 6, 3);
    secondLeader.run(); // the member's claim still says 4, for the predecessor's shipments
    assertThat(second.unpersistedCount()).as("held until the member claims them").isEqualTo(3);
    assertEveryAcknowledgedCommitIsPersistedOrHeld();

    crash(MEMBER, TAKEOVER);
    secondLeader.run(); // sees the member dead: ships again what it had not claimed
    shipAgain(second);
    assertThat(memstores.get(TAKEOVER)).hasSize(3);
    assertEveryAcknowledgedCommitIsPersistedOrHeld();
    heartbeat(TAKEOVER, LogId.of(TAKEOVER, 1), idleShipper()).run();
    assertThat(persisted).containsAll(acknowledged);
  }

  @Test
  void aServerThatStopsGStoreCleanlyStopsHoldingLeadersBack() {
    start(MEMBER);
    start(LEADER);
    start(TAKEOVER); // registered, then G-Store stops there while the region server runs on
    ShipmentLedger leader = shipper();
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

  private ShipmentLedger shipper() {
    ShipmentLedger[] made = new ShipmentLedger[1];
    made[0] = new ShipmentLedger(false, 1, s -> outbox.get(made[0]).add(s));
    outbox.put(made[0], new ArrayList<>());
    ledgers.add(made[0]);
    return made[0];
  }

  /** Ships what {@code ledger} asked to ship again to the member row's host now. */
  private void shipAgain(ShipmentLedger ledger) {
    List<Shipment> batch = new ArrayList<>(outbox.get(ledger));
    outbox.get(ledger).clear();
    ship(ledger, batch);
  }

  private void ship(ShipmentLedger ledger, List<Shipment> batch) {
    batch.forEach(sh -> memstores.get(host).add(sh.commitTs()));
    ledger.shipped(batch, ledger.epoch());
  }

  private ShipmentLedger idleShipper() {
    return shipper();
  }

  private PersistenceHeartbeat heartbeat(String server, String log, ShipmentLedger shipper) {
    return new PersistenceHeartbeat(server, log, claims, () -> {
      persisted.addAll(memstores.get(server));
      memstores.get(server).clear();
    }, shipper, (neededAbove, retain) -> 0, System::currentTimeMillis, 600_000, 0);
  }

  private void commit(ShipmentLedger ledger, long firstTs, int count) {
    List<Shipment> batch = new ArrayList<>();
    for (long ts = firstTs; ts < firstTs + count; ts++) {
      acknowledged.add(ts);
      Shipment s = new Shipment(GROUP, ts, "t" + ts, List.of(), new WalPosition(0, ts));
      ledger.handOver(s);
      batch.add(s);
    }
    ship(ledger, batch);
  }

  private void assertEveryAcknowledgedCommitIsPersistedOrHeld() {
    long held = ledgers.stream().mapToLong(ShipmentLedger::pendingCount).sum();
    Set<Long> missing = new HashSet<>(acknowledged);
    missing.removeAll(persisted);
    assertThat(missing.size()).as("acknowledged commits neither persisted nor held: %s", missing)
        .isLessThanOrEqualTo((int) held);
  }
}
