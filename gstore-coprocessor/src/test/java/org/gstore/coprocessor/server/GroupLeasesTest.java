package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.gstore.common.protocol.ClientRequest;
import org.gstore.common.protocol.CreateMode;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.MemberState;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Reply;
import org.gstore.common.protocol.Uid;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The production {@link GroupLeases} over an in-memory store of expiries, engine and deleter, with a clock the test
 * sets. A second instance over the same store is the group's next leader after a move or crash.
 */
@Timeout(30)
class GroupLeasesTest {
  private static final long LEASE = 9_000;
  private static final GroupId LEASED = new GroupId("leased", Key.of("t", "a"));
  private static final GroupId FOREVER = new GroupId("forever", Key.of("t", "b"));
  private static final GroupId ELSEWHERE = new GroupId("elsewhere", Key.of("t", "z"));

  private final AtomicLong clock = new AtomicLong(100_000);
  private final Map<GroupId, GroupRecord> live = new HashMap<>();
  /** The durable expiries, shared by every leader of the group. */
  private final Map<GroupRef, Long> durable = new HashMap<>();
  private final AtomicBoolean storeDown = new AtomicBoolean();
  private final List<ClientRequest.Delete> deletes = new ArrayList<>();
  private final CompletableFuture<Reply> deleted = new CompletableFuture<>();
  private final GroupLeases.Store store = new GroupLeases.Store() {
    @Override
    public Map<GroupRef, Long> expiries(Collection<GroupRef> groups) throws IOException {
      failIfDown();
      Map<GroupRef, Long> found = new HashMap<>();
      groups.forEach(g -> {
        if (durable.containsKey(g)) {
          found.put(g, durable.get(g));
        }
      });
      return found;
    }

    @Override
    public void writeExpiries(Map<GroupRef, Long> expiries) throws IOException {
      failIfDown();
      durable.putAll(expiries);
    }
  };

  GroupLeasesTest() {
    live.put(LEASED, record(LEASED, 1, LEASE, GroupPhase.ACTIVE));
    live.put(FOREVER, record(FOREVER, 1, 0, GroupPhase.ACTIVE));
  }

  private GroupLeases leader() {
    return new GroupLeases(() -> Map.copyOf(live), k -> !k.equals(ELSEWHERE.leader()), store, d -> {
      deletes.add(d);
      return deleted;
    }, new GStoreMetrics(MetricRegistries.global().create(new MetricRegistryInfo("lease-test", "t", "t", "t",
        false))), clock::get, Thread::new);
  }

  @Test
  void aRenewedLeaseKeepsItsGroupAndALapsedOneDeletesItOnce() throws Exception {
    GroupLeases leases = leader();
    leases.check();
    clock.addAndGet(LEASE - 1);
    assertThat(leases.renew(List.of(LEASED))).extracting(GroupLeases.Answer::outcome)
        .containsExactly(GroupLeases.Outcome.RENEWED);
    clock.addAndGet(LEASE - 1);
    leases.check();
    assertThat(deletes).as("renewed within its lease").isEmpty();

    clock.addAndGet(1);
    leases.check();
    leases.check();
    assertThat(deletes).as("one delete, however many checks see it lapsed").hasSize(1);
    assertThat(deletes.get(0).group()).isEqualTo(LEASED);
    assertThat(leases.renew(List.of(LEASED))).as("a renewal after the expiry does not revive it")
        .extracting(GroupLeases.Answer::outcome).containsExactly(GroupLeases.Outcome.NO_GROUP);
  }

  @Test
  void aNewLeaderKeepsTheExpiryItsPredecessorMadeDurableNeitherShorterNorLonger() throws Exception {
    GroupLeases old = leader();
    long expiresAt = old.renew(List.of(LEASED)).get(0).expiresAt();
    assertThat(expiresAt).isEqualTo(clock.get() + LEASE);

    clock.addAndGet(LEASE - 2_000); // the leader moves or crashes; the next one loads the group now
    GroupLeases next = leader();
    next.check();
    assertThat(next.expiresAt(LEASED)).as("from durable state, not from the new leader's clock")
        .isEqualTo(expiresAt);
    clock.set(expiresAt - 1);
    next.check();
    assertThat(deletes).isEmpty();
    clock.set(expiresAt);
    next.check();
    assertThat(deletes).hasSize(1);
  }

  @Test
  void aGroupFirstSeenWithoutADurableExpiryGetsALeaseFromNowAndMakesItDurable() throws Exception {
    leader().check();
    assertThat(durable).containsEntry(live.get(LEASED).group(), clock.get() + LEASE).hasSize(1);
  }

  @Test
  void theExpiryOfAnEarlierGroupOfTheSameNameIsNotThisOnes() throws Exception {
    GroupRef earlier = record(LEASED, 7, LEASE, GroupPhase.ACTIVE).group();
    durable.put(earlier, clock.get() - 1); // lapsed long ago, for the group deleted before this one was made
    GroupLeases leases = leader();
    leases.check();
    assertThat(deletes).isEmpty();
    assertThat(leases.expiresAt(LEASED)).isEqualTo(clock.get() + LEASE);
  }

  @Test
  void renewalsSayWhichGroupsAreNotLedHereHaveNoLeaseOrAreGone() throws Exception {
    GroupId gone = new GroupId("gone", Key.of("t", "c"));
    assertThat(leader().renew(List.of(ELSEWHERE, FOREVER, gone))).extracting(GroupLeases.Answer::outcome)
        .containsExactly(GroupLeases.Outcome.NOT_HERE, GroupLeases.Outcome.NO_LEASE,
            GroupLeases.Outcome.NO_GROUP);
  }

  @Test
  void aGroupStillBeingCreatedIsNotDeletedAndARenewalThatCannotBeMadeDurableIsRefused() throws Exception {
    live.put(LEASED, record(LEASED, 1, LEASE, GroupPhase.CREATING)); // re-formed by a restarted leader
    GroupLeases leases = leader();
    leases.check();
    clock.addAndGet(2 * LEASE);
    leases.check();
    assertThat(deletes).as("deleted only once active").isEmpty();

    Map<GroupRef, Long> before = Map.copyOf(durable);
    storeDown.set(true);
    assertThatThrownBy(() -> leases.renew(List.of(LEASED))).isInstanceOf(IOException.class);
    assertThat(leases.expiresAt(LEASED)).as("not renewed in memory either").isEqualTo(before.values().iterator()
        .next());
    GroupLeases next = leader(); // the group's next leader cannot read the expiry yet
    assertThatThrownBy(next::check).isInstanceOf(IOException.class);
    storeDown.set(false);
    live.put(LEASED, record(LEASED, 1, LEASE, GroupPhase.ACTIVE));
    next.check();
    assertThat(deletes).as("the next check after the failure deletes it").hasSize(1);
    assertThat(durable).isEqualTo(before);
  }

  private void failIfDown() throws IOException {
    if (storeDown.get()) {
      throw new IOException("planted: gstore:groups is unavailable");
    }
  }

  private static GroupRecord record(GroupId id, long epoch, long lease, GroupPhase phase) {
    TreeMap<Key, MemberState> members = new TreeMap<>();
    members.put(id.leader(), new MemberState(MemberState.Status.JOINED, new Uid(new NodeId("n"), 2), null));
    return new GroupRecord(new GroupRef(id, new Uid(new NodeId("n"), epoch)), CreateMode.ATOMIC, phase, "req",
        members, null, 0, lease);
  }
}
