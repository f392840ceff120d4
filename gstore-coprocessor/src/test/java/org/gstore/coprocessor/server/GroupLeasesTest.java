package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
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
import org.awaitility.Awaitility;
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
  private static final String HOLDER = "4242@game-server-7";
  private static final GroupId ELSEWHERE = new GroupId("elsewhere", Key.of("t", "z"));

  private final AtomicLong clock = new AtomicLong(100_000);
  private final Map<GroupId, GroupRecord> live = new HashMap<>();
  /** The durable expiries, shared by every leader of the group. */
  private final Map<GroupRef, Long> durable = new HashMap<>();
  private final Map<GroupRef, String> holders = new HashMap<>();
  private final AtomicBoolean storeDown = new AtomicBoolean();
  /** Whether the leased group's leader row moves away while its lease is written. */
  private final AtomicBoolean moveOnWrite = new AtomicBoolean();
  private final AtomicBoolean moved = new AtomicBoolean();
  /** Whether a recovery has fenced this server (it was declared dead, and is a zombie now). */
  private final AtomicBoolean fenced = new AtomicBoolean();
  private final List<ClientRequest.Delete> deletes = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final CompletableFuture<Reply> deleted = new CompletableFuture<>();
  private final GroupLeases.Store store = new GroupLeases.Store() {
    @Override
    public Map<GroupRef, GroupLeases.Lease> leases(Collection<GroupRef> groups) throws IOException {
      failIfDown();
      Map<GroupRef, GroupLeases.Lease> found = new HashMap<>();
      groups.forEach(g -> {
        if (durable.containsKey(g)) {
          found.put(g, new GroupLeases.Lease(g, durable.get(g), holders.get(g)));
        }
      });
      return found;
    }

    @Override
    public void write(Collection<GroupLeases.Lease> leases) throws IOException {
      failIfDown();
      moved.compareAndSet(false, moveOnWrite.get());
      leases.forEach(l -> {
        durable.put(l.group(), l.expiresAt());
        holders.put(l.group(), l.holder());
      });
    }
  };

  GroupLeasesTest() {
    live.put(LEASED, record(LEASED, 1, LEASE, GroupPhase.ACTIVE));
    live.put(FOREVER, record(FOREVER, 1, 0, GroupPhase.ACTIVE));
  }

  private GroupLeases leader() {
    return new GroupLeases(() -> Map.copyOf(live),
        k -> !k.equals(ELSEWHERE.leader()) && !(moved.get() && k.equals(LEASED.leader())), store, () -> {
          if (fenced.get()) {
            throw new org.gstore.coprocessor.wal.WalFencedException("planted: a recovery renamed this server's WAL");
          }
        }, d -> {
      deletes.add(d);
      return deleted;
    }, new GStoreMetrics(MetricRegistries.global().create(new MetricRegistryInfo("lease-test", "t", "t", "t",
        false))), clock::get, Thread::new);
  }

  /** Issue 35, item 7: a zombie leader answered RENEWED for a lease write the group's next leader may not read. */
  @Test
  void aFencedLeaderRenewsNothing() throws Exception {
    GroupLeases leases = leader();
    fenced.set(true);
    assertThatThrownBy(() -> leases.renew(List.of(LEASED), HOLDER))
        .isInstanceOf(org.gstore.coprocessor.wal.WalFencedException.class);
  }

  @Test
  void aRenewedLeaseKeepsItsGroupAndALapsedOneDeletesItOnce() throws Exception {
    GroupLeases leases = leader();
    leases.check();
    clock.addAndGet(LEASE - 1);
    assertThat(leases.renew(List.of(LEASED), HOLDER)).extracting(GroupLeases.Answer::outcome)
        .containsExactly(GroupLeases.Outcome.RENEWED);
    clock.addAndGet(LEASE - 1);
    leases.check();
    assertThat(leases.isExpiring(LEASED)).as("renewed within its lease").isFalse();

    clock.addAndGet(1);
    leases.check();
    leases.check();
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> deletes.size() == 1);
    assertThat(deletes).as("one delete, however many checks see it lapsed").hasSize(1);
    assertThat(deletes.get(0).group()).isEqualTo(LEASED);
    assertThat(leases.renew(List.of(LEASED), HOLDER)).as("a renewal after the expiry does not revive it")
        .extracting(GroupLeases.Answer::outcome).containsExactly(GroupLeases.Outcome.NO_GROUP);
  }

  @Test
  void aNewLeaderEarlyInALeaseKeepsTheExpiryItsPredecessorMadeDurable() throws Exception {
    long expiresAt = leader().renew(List.of(LEASED), HOLDER).get(0).expiresAt();
    assertThat(expiresAt).isEqualTo(clock.get() + LEASE);

    clock.addAndGet(1_000); // the leader moves or crashes; the next one serves the group a second later
    GroupLeases next = leader();
    next.check();
    assertThat(next.expiresAt(LEASED)).as("from durable state, not from the new leader's clock")
        .isEqualTo(expiresAt);
    assertThat(next.lease(LEASED).holder()).as("and who renewed it, for operators").isEqualTo(HOLDER);
    clock.set(expiresAt - 1);
    next.check();
    assertThat(next.isExpiring(LEASED)).as("not shortened").isFalse();
    clock.set(expiresAt);
    next.check();
    assertThat(next.isExpiring(LEASED)).as("nor lengthened").isTrue();
  }

  @Test
  void aGroupWhoseLeaseLapsedWhileNoLeaderServedItGetsTwoRenewalRoundsFromItsNewLeader() throws Exception {
    long expiresAt = leader().renew(List.of(LEASED), HOLDER).get(0).expiresAt();
    clock.set(expiresAt + 5_000); // a crash whose recovery outlasted the lease: no client could renew meanwhile
    GroupLeases next = leader();
    long servedAt = clock.get();
    next.check();
    assertThat(next.isExpiring(LEASED)).isFalse();
    clock.set(servedAt + LEASE * 2 / 3 - 1);
    next.check();
    assertThat(next.isExpiring(LEASED)).as("its clients get two renewal rounds").isFalse();
    clock.set(servedAt + LEASE * 2 / 3);
    next.check();
    assertThat(next.isExpiring(LEASED)).as("and no more").isTrue();
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
    assertThat(leases.isExpiring(LEASED)).isFalse();
    assertThat(leases.expiresAt(LEASED)).isEqualTo(clock.get() + LEASE);
  }

  @Test
  void aRenewalWhoseGroupMovedWhileItWasWrittenIsNotAnsweredRenewed() throws Exception {
    moveOnWrite.set(true); // the next leader may already have read the older expiry
    assertThat(leader().renew(List.of(LEASED), HOLDER)).extracting(GroupLeases.Answer::outcome)
        .containsExactly(GroupLeases.Outcome.NOT_HERE);
  }

  @Test
  void renewalsSayWhichGroupsAreNotLedHereHaveNoLeaseOrAreGone() throws Exception {
    GroupId gone = new GroupId("gone", Key.of("t", "c"));
    assertThat(leader().renew(List.of(ELSEWHERE, FOREVER, gone), HOLDER)).extracting(GroupLeases.Answer::outcome)
        .containsExactly(GroupLeases.Outcome.NOT_HERE, GroupLeases.Outcome.NO_LEASE,
            GroupLeases.Outcome.NO_GROUP);
  }

  @Test
  void aGroupBeingCreatedHasNoLeaseYetAndAClientThatKeepsAskingKeepsItsGroupWhileTheStoreIsDown()
      throws Exception {
    live.put(LEASED, record(LEASED, 1, LEASE, GroupPhase.CREATING)); // slow members, or re-formed after a restart
    GroupLeases leases = leader();
    leases.check();
    clock.addAndGet(2 * LEASE);
    leases.check();
    assertThat(leases.expiresAt(LEASED)).as("its lease starts once it is active").isNull();

    live.put(LEASED, record(LEASED, 1, LEASE, GroupPhase.ACTIVE));
    leases.check();
    long expiresAt = leases.expiresAt(LEASED);
    storeDown.set(true);
    clock.set(expiresAt - 1);
    assertThatThrownBy(() -> leases.renew(List.of(LEASED), HOLDER)).isInstanceOf(IOException.class);
    clock.set(expiresAt + LEASE / 2);
    leases.check();
    assertThat(leases.isExpiring(LEASED)).as("past its durable expiry, but its client is alive").isFalse();

    clock.addAndGet(LEASE); // the client stopped asking too
    assertThatThrownBy(leases::check).as("the expiry is read again before deleting").isInstanceOf(IOException.class);
    assertThat(deletes).isEmpty();
    storeDown.set(false);
    leases.check();
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> deletes.size() == 1);
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
