package org.gstore.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gstore.common.protocol.ScriptedNetwork.key;

import java.util.List;
import java.util.function.Predicate;
import org.gstore.common.protocol.ScriptedNetwork.Packet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cases of the G-Store paper's section 4.2 and 4.3, staged message by message on a scripted network.
 * Each test checks the safety invariants after every step (see {@link ScriptedNetwork}).
 */
@Timeout(10)
class KeyGroupingScenariosTest {
  private static Predicate<Message> is(Class<? extends Message> type, String member) {
    return m -> type.isInstance(m) && m.member().equals(key(member));
  }

  private static ScriptedNetwork twoNodes() {
    return new ScriptedNetwork(Follower::new, "L@n1", "F@n2", "G@n2", "H@n3");
  }

  @Test
  void ghostGroupOfFigure5IsPrevented() {
    ScriptedNetwork net = twoNodes();
    assertThat(figure5(net)).isNull();
  }

  @Test
  void figure5FormsAGhostGroupWhenTheFollowerIgnoresYieldIds() {
    ScriptedNetwork net = new ScriptedNetwork(SimulationTest.AcceptsStaleJoinAckAck::new, "L@n1", "F@n2", "G@n2",
        "H@n3");
    OwnerRecord ghost = figure5(net);
    assertThat(ghost).as("the planted bug yields F to a group that no longer exists").isNotNull();
    assertThat(net.liveOwner("F").state()).as("F stopped retrying: nothing will ever free it")
        .isEqualTo(OwnerRecord.State.YIELDED);
  }

  /**
   * Figure 5: J is duplicated, the JAA is delayed, and a delete overlaps the create. Returns the ghost owner record
   * left after everything settled, or null.
   */
  private static OwnerRecord figure5(ScriptedNetwork net) {
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    Packet join = net.takeOne(is(Join.class, "F"));
    Packet duplicateJoin = join; // the network duplicated J(F); one copy arrives now, the other much later
    net.deliver(join);
    net.deliver(net.takeOne(is(JoinAck.class, "F")));
    Packet delayedJaa = net.takeOne(is(JoinAckAck.class, "F")); // the leader's JAA(F) is delayed
    Uid firstYield = ((JoinAckAck) delayedJaa.message()).yieldId();
    net.deliverAll(); // the leader key's own handshake

    net.delete(g);
    net.deliverAll(); // D reaches F before the JAA: F is freed and answers DA; the group is deleted
    assertThat(net.ended(g)).isTrue();
    assertThat(net.owner("F")).isNull();

    net.deliver(duplicateJoin); // the stale duplicate J: F cannot tell, and joins again
    assertThat(net.owner("F").state()).isEqualTo(OwnerRecord.State.JOINING);
    net.take(is(JoinAck.class, "F")); // and its JA is lost

    net.deliver(delayedJaa); // the delayed JAA carries the old yield id
    OwnerRecord afterJaa = net.liveOwner("F");
    if (afterJaa.state() == OwnerRecord.State.JOINING) {
      assertThat(afterJaa.yieldId()).isNotEqualTo(firstYield);
    }
    net.settle(60_000); // JA retries reach the leader, which no longer knows g and answers D
    return net.owner("F");
  }

  @Test
  void duplicateJoinGetsTheSameJoinAckWithoutNewLogging() {
    ScriptedNetwork net = twoNodes();
    net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    Packet join = net.takeOne(is(Join.class, "F"));
    net.deliver(join);
    JoinAck first = (JoinAck) net.takeOne(is(JoinAck.class, "F")).message();
    Step again = net.deliver(join);
    JoinAck second = (JoinAck) net.takeOne(is(JoinAck.class, "F")).message();
    assertThat(second).isEqualTo(first);
    assertThat(again.changes()).as("a duplicate J logs nothing").isEmpty();
  }

  @Test
  void joinForAKeyInAnotherGroupIsRefusedWithoutBlocking() {
    ScriptedNetwork net = twoNodes();
    GroupId a = net.create("a", "L", CreateMode.ATOMIC, "L", "F");
    net.settle(1_000);
    GroupId b = net.create("b", "H", CreateMode.ATOMIC, "H", "F", "G");
    net.deliverAll();
    Reply reply = net.replies.stream().filter(r -> r.outcome() == Reply.Outcome.FAILED).findFirst().orElseThrow();
    assertThat(((Reply.Create) reply).group().members().get(key("F")).refusal()).contains("is in group a@t/L");
    net.settle(10_000);
    assertThat(net.ended(b)).as("the failed atomic group is deleted").isTrue();
    assertThat(net.owner("G")).as("the members that did join are released").isNull();
    assertThat(net.owner("H")).isNull();
    assertThat(net.owner("F").group().id()).isEqualTo(a);
    assertThat(net.group(a).phase()).isEqualTo(GroupPhase.ACTIVE);
  }

  @Test
  void joinAckForAnUnknownGroupIsAnsweredWithOneUnloggedUnretriedDelete() {
    ScriptedNetwork net = twoNodes();
    GroupRef unknown = new GroupRef(new GroupId("gone", key("L")), new Uid(ScriptedNetwork.node("n1"), 999));
    Step step = net.deliver(new Packet(ScriptedNetwork.node("n2"), ScriptedNetwork.node("n1"),
        JoinAck.joined(unknown, key("F"), new Uid(ScriptedNetwork.node("n2"), 5))));
    assertThat(step.changes()).isEmpty();
    assertThat(net.takeOne(is(Delete.class, "F")).message().group()).isEqualTo(unknown);
    assertThat(net.engine("n1").nextWakeup()).as("the D is not retried").isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void everyJoinAckIsAnsweredWithJoinAckAckWhichIsNeverRetried() {
    ScriptedNetwork net = twoNodes();
    net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    net.deliver(net.takeOne(is(Join.class, "F")));
    Packet ja = net.takeOne(is(JoinAck.class, "F"));
    net.deliver(ja);
    net.deliver(ja); // duplicate
    List<Packet> jaas = net.take(is(JoinAckAck.class, "F"));
    assertThat(jaas).hasSize(2); // answered both times (drop both: lost)
    net.deliverAll(); // the leader's own key joins: the group is active
    assertThat(net.lastReply().outcome()).isEqualTo(Reply.Outcome.CREATED);
    assertThat(net.engine("n1").nextWakeup()).as("the leader retries nothing").isEqualTo(Long.MAX_VALUE);
    // F's JA retry repairs the lost JAA
    net.advance(25);
    net.deliverAll();
    assertThat(net.liveOwner("F").state()).isEqualTo(OwnerRecord.State.YIELDED);
    assertThat(net.engine("n2").nextWakeup()).as("F stopped retrying").isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void staleJoinAckAckIsIgnored() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    net.deliver(net.takeOne(is(Join.class, "F")));
    OwnerRecord joining = net.owner("F");
    Step step = net.deliver(new Packet(ScriptedNetwork.node("n1"), ScriptedNetwork.node("n2"),
        new JoinAckAck(joining.group(), key("F"), new Uid(ScriptedNetwork.node("n2"), joining.yieldId().seq() + 7))));
    assertThat(step.changes()).isEmpty();
    assertThat(net.owner("F")).isEqualTo(joining);
    net.settle(1_000);
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.ACTIVE);
  }

  @Test
  void deleteForAnUnknownGroupIsAnsweredWithDeleteAck() {
    ScriptedNetwork net = twoNodes();
    GroupRef unknown = new GroupRef(new GroupId("never", key("L")), new Uid(ScriptedNetwork.node("n1"), 3));
    Step step = net.deliver(new Packet(ScriptedNetwork.node("n1"), ScriptedNetwork.node("n2"),
        new Delete(unknown, key("F"))));
    assertThat(step.changes()).isEmpty();
    assertThat(net.takeOne(is(DeleteAck.class, "F")).message().group()).isEqualTo(unknown);
  }

  @Test
  void lostJoinsJoinAcksDeletesAndDeleteAcksAreRepairedByRetries() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F", "G");
    net.take(is(Join.class, "F")); // lost J
    net.deliverAll();
    net.advance(20);
    net.deliver(net.takeOne(is(Join.class, "F"))); // retried
    net.take(is(JoinAck.class, "F")); // lost JA
    net.advance(20);
    net.settle(1_000);
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.ACTIVE);

    net.delete(g);
    net.take(is(Delete.class, "F")); // lost D
    net.deliver(net.takeOne(is(Delete.class, "G")));
    net.take(is(DeleteAck.class, "G")); // lost DA
    net.deliverAll();
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.DELETING);
    net.settle(5_000);
    assertThat(net.ended(g)).isTrue();
    assertThat(net.cluster.durable.owners).isEmpty();
    assertThat(net.lastReply().outcome()).isEqualTo(Reply.Outcome.DELETED);
  }

  @Test
  void deleteAcksAreRememberedAndLoggedOnlyWithEnded() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F", "G");
    net.settle(1_000);
    net.delete(g);
    net.deliver(net.takeOne(is(Delete.class, "F")));
    Packet da = net.takeOne(is(DeleteAck.class, "F"));
    assertThat(net.deliver(da).changes()).as("one DA of three: nothing to log yet").isEmpty();
    assertThat(net.engine("n1").group(g).orElseThrow().members().get(key("F")).status())
        .isEqualTo(MemberState.Status.RELEASED);
    assertThat(net.deliver(da).changes()).isEmpty();
    net.settle(1_000);
    assertThat(net.ended(g)).isTrue();
    assertThat(net.group(g).members(MemberState.Status.RELEASED)).hasSize(3);
  }

  @Test
  void leaderCrashDuringDeleteAsksForTheReleasesAgain() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F", "G");
    net.settle(1_000);
    net.delete(g);
    net.deliver(net.takeOne(is(Delete.class, "F")));
    net.deliver(net.takeOne(is(DeleteAck.class, "F")));
    net.crash("n1");
    net.inFlight.clear();
    net.advance(100);
    net.restart("n1");
    assertThat(net.engine("n1").group(g).orElseThrow().members().get(key("F")).status())
        .as("the release was not logged").isEqualTo(MemberState.Status.JOINED);
    net.settle(5_000);
    assertThat(net.ended(g)).isTrue();
    assertThat(net.cluster.durable.owners).isEmpty();
  }

  @Test
  void deleteOverlappingCreateReleasesAFollowerThatJoinsAfterwards() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    Packet lateJoin = net.takeOne(is(Join.class, "F")); // delayed
    net.delete(g);
    assertThat(net.replies).as("no answer while a row may still be held").isEmpty();
    net.deliverAll(); // F sees D for a group it never heard of, and answers DA
    assertThat(net.ended(g)).isTrue();
    assertThat(net.replies).as("the create fails, and the delete succeeds, once the group has ended")
        .extracting(Reply::outcome).containsExactly(Reply.Outcome.FAILED, Reply.Outcome.DELETED);
    net.deliver(lateJoin); // F cannot tell the J is stale and joins
    assertThat(net.owner("F")).isNotNull();
    net.settle(10_000); // its JA reaches a leader that forgot g, which answers D
    assertThat(net.owner("F")).isNull();
  }

  @Test
  void atomicCreateWithARefusedMemberLeavesNoKeyJoined() {
    ScriptedNetwork net = twoNodes();
    net.create("a", "G", CreateMode.ATOMIC, "G");
    net.settle(1_000);
    GroupId b = net.create("b", "L", CreateMode.ATOMIC, "L", "F", "G", "H");
    while (net.replies.stream().noneMatch(r -> r.requestId().equals("req-2"))) {
      List<ScriptedNetwork.Packet> inFlight = net.take(m -> true);
      assertThat(inFlight).as("the failed create is answered").isNotEmpty();
      inFlight.forEach(net::deliver);
    }
    for (String k : List.of("L", "F", "H")) {
      assertThat(net.owner(k)).as("when the failure is answered, " + k + " is free").isNull();
    }
    net.settle(10_000);
    Reply.Create reply = (Reply.Create) net.replies.stream().filter(r -> r.requestId().equals("req-2"))
        .findFirst().orElseThrow();
    assertThat(reply.outcome()).isEqualTo(Reply.Outcome.FAILED);
    assertThat(reply.group().members(MemberState.Status.REFUSED)).containsExactly(key("G"));
    assertThat(net.ended(b)).isTrue();
    for (String k : List.of("L", "F", "H")) {
      assertThat(net.owner(k)).as(k).isNull();
    }
  }

  @Test
  void bestEffortCreateKeepsTheMembersThatJoinedAndReportsTheRefused() {
    ScriptedNetwork net = twoNodes();
    net.create("a", "G", CreateMode.ATOMIC, "G");
    net.settle(1_000);
    GroupId b = net.create("b", "L", CreateMode.BEST_EFFORT, "L", "F", "G", "H");
    net.settle(10_000);
    Reply.Create reply = (Reply.Create) net.lastReply();
    assertThat(reply.outcome()).isEqualTo(Reply.Outcome.CREATED);
    assertThat(reply.group().members(MemberState.Status.JOINED)).containsExactly(key("F"), key("H"), key("L"));
    assertThat(reply.group().members(MemberState.Status.REFUSED)).containsExactly(key("G"));
    assertThat(net.owner("H").group().id()).isEqualTo(b);
  }

  @Test
  void bestEffortCreateFailsWhenTheLeaderKeyItselfIsRefused() {
    ScriptedNetwork net = twoNodes();
    net.create("a", "L", CreateMode.ATOMIC, "L");
    net.settle(1_000);
    net.request(new ClientRequest.Create("other", new GroupId("b", key("L")), java.util.Set.of(key("F")),
        CreateMode.BEST_EFFORT));
    net.settle(1_000);
    assertThat(net.replies).anyMatch(r -> r.requestId().equals("other") && r.outcome() == Reply.Outcome.FAILED);
    assertThat(net.owner("F")).isNull();
  }

  @Test
  void leaderCrashDuringCreateResumesFromDurableState() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F", "H");
    net.deliver(net.takeOne(is(Join.class, "F")));
    net.deliver(net.takeOne(is(JoinAck.class, "F")));
    net.crash("n1");
    net.inFlight.clear();
    net.advance(100);
    net.restart("n1");
    assertThat(net.engine("n1").group(g).orElseThrow().members().get(key("F")).status())
        .as("F's answer was remembered, not logged: the restarted leader asks again").isEqualTo(
            MemberState.Status.PENDING);
    net.settle(5_000);
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.ACTIVE);
    assertThat(net.group(g).members(MemberState.Status.JOINED)).hasSize(3);
    assertThat(net.owner("F").group()).isEqualTo(net.group(g).group());
  }

  @Test
  void leaderCrashAfterAYieldedMemberStoppedRetryingAsksItAgain() {
    // the JAA reached F, so F noted YIELDED and stopped retrying JA; the leader had not logged F's answer
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F", "H");
    net.deliver(net.takeOne(is(Join.class, "F")));
    net.deliver(net.takeOne(is(JoinAck.class, "F")));
    net.deliver(net.takeOne(is(JoinAckAck.class, "F")));
    assertThat(net.liveOwner("F").state()).isEqualTo(OwnerRecord.State.YIELDED);
    net.crash("n1");
    net.inFlight.clear();
    net.advance(100);
    net.restart("n1");
    net.settle(5_000);
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.ACTIVE);
    assertThat(net.group(g).members().get(key("F")))
        .isEqualTo(MemberState.joined(net.owner("F").yieldId()));
    net.delete(g);
    net.settle(5_000);
    assertThat(net.ended(g)).isTrue();
    assertThat(net.cluster.durable.owners).as("no ghost: F was given back").isEmpty();
  }

  @Test
  void followerCrashWhileJoiningResumesItsJoinAckRetries() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    net.deliver(net.takeOne(is(Join.class, "F")));
    net.take(is(JoinAck.class, "F")); // lost
    net.crash("n2");
    net.restart("n2");
    net.take(is(Join.class, "F")); // no J retry reaches F: its own JA retry must do it
    net.advance(1);
    net.deliver(net.takeOne(is(JoinAck.class, "F")));
    net.settle(1_000);
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.ACTIVE);
    assertThat(net.liveOwner("F").state()).isEqualTo(OwnerRecord.State.YIELDED);
  }

  @Test
  void aYieldIsNotLoggedAndAFollowerThatReloadsItAsksTheLeaderAgain() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    net.deliver(net.takeOne(is(Join.class, "F")));
    net.deliver(net.takeOne(is(JoinAck.class, "F")));
    Step yielded = net.deliver(net.takeOne(is(JoinAckAck.class, "F")));
    assertThat(yielded.changes()).as("the JAA is noted in memory only").isEmpty();
    net.settle(1_000);
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.ACTIVE);
    assertThat(net.owner("F").state()).as("durable").isEqualTo(OwnerRecord.State.JOINING);
    assertThat(net.liveOwner("F").state()).as("in memory").isEqualTo(OwnerRecord.State.YIELDED);

    net.crash("n2"); // F reloads JOINING and asks again; the active group answers JAA
    net.restart("n2");
    net.settle(1_000);
    assertThat(net.liveOwner("F").state()).isEqualTo(OwnerRecord.State.YIELDED);
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.ACTIVE);

    net.crash("n2"); // down while the group is deleted: the leader's D retries wait for it
    net.delete(g);
    net.settle(1_000);
    assertThat(net.ended(g)).as("the delete waits for F").isFalse();
    net.restart("n2");
    net.settle(5_000);
    assertThat(net.ended(g)).isTrue();
    assertThat(net.cluster.durable.owners).as("no ghost: F was given back").isEmpty();
  }

  /** The step that answered the client with {@code outcome}. */
  private static Step answering(ScriptedNetwork net, Reply.Outcome outcome) {
    return net.steps.stream().filter(s -> s.replies().stream().anyMatch(r -> r.outcome() == outcome))
        .reduce((a, b) -> b).orElseThrow();
  }

  /** Delivers messages in order until the client gets an answer (and no further). */
  private static void deliverUntilAnswered(ScriptedNetwork net) {
    int before = net.replies.size();
    while (net.replies.size() == before) {
      assertThat(net.inFlight).as("nothing left to deliver, and no answer").isNotEmpty();
      net.deliver(net.inFlight.get(0));
    }
  }

  private static boolean writes(List<StateChange> changes, GroupPhase phase) {
    return changes.stream().anyMatch(c -> c instanceof StateChange.PutGroup p && p.record().phase() == phase);
  }

  /** The client heard {@code outcome} before g's {@code phase} record was durable: it is still {@code durable}. */
  private static void assertAnsweredBeforeWriting(ScriptedNetwork net, GroupId g, Reply.Outcome outcome,
      GroupPhase phase, GroupPhase durable) {
    assertThat(net.lastReply().outcome()).isEqualTo(outcome);
    Step answer = answering(net, outcome);
    assertThat(writes(answer.deferred(), phase)).as("%s is deferred", phase).isTrue();
    assertThat(writes(answer.changes(), phase)).isFalse();
    assertThat(net.group(g).phase()).as("durable").isEqualTo(durable);
  }

  /** The client heard {@code outcome} only once g's {@code phase} record was durable. */
  private static void assertAnsweredAfterWriting(ScriptedNetwork net, GroupId g, Reply.Outcome outcome,
      GroupPhase phase) {
    assertThat(net.lastReply().outcome()).isEqualTo(outcome);
    assertThat(writes(answering(net, outcome).changes(), phase)).as("%s is written first", phase).isTrue();
    assertThat(net.group(g).phase()).isEqualTo(phase);
  }

  /** {@code row} joins a group of its own; from then on deferred writes wait until the test writes them. */
  private static void putInAnotherGroupAndHoldDeferredWrites(ScriptedNetwork net, String row) {
    net.create("other", row, CreateMode.ATOMIC, row);
    net.settle(1_000);
    net.holdDeferredWrites();
  }

  @Test
  void createdIsAnsweredBeforeActiveIsDurableAndARestartedLeaderReFormsTheSameGroup() {
    ScriptedNetwork net = twoNodes();
    net.holdDeferredWrites();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F", "H");
    deliverUntilAnswered(net);
    assertAnsweredBeforeWriting(net, g, Reply.Outcome.CREATED, GroupPhase.ACTIVE, GroupPhase.CREATING);
    GroupRecord announced = ((Reply.Create) net.lastReply()).group();

    net.crash("n1"); // ACTIVE is lost; every member's JOINING record is durable
    net.restart("n1");
    net.settle(5_000);
    net.cluster.writeDeferred(ScriptedNetwork.node("n1")); // the writer catches up
    GroupRecord reformed = net.group(g);
    assertThat(reformed.phase()).isEqualTo(GroupPhase.ACTIVE);
    assertThat(reformed.group()).as("the same incarnation").isEqualTo(announced.group());
    assertThat(reformed.members(MemberState.Status.JOINED)).isEqualTo(announced.members(MemberState.Status.JOINED));
    for (String row : List.of("L", "F", "H")) {
      assertThat(net.owner(row).group()).isEqualTo(announced.group());
    }
  }

  @Test
  void aGroupWithARefusedMemberIsActiveDurablyBeforeItsClientHears() {
    ScriptedNetwork net = twoNodes();
    putInAnotherGroupAndHoldDeferredWrites(net, "G");
    GroupId g = net.create("g", "L", CreateMode.BEST_EFFORT, "L", "F", "G");
    net.deliverAll();
    // G may be free after a restart: a re-formed group could take it, unlike what its client was told
    assertAnsweredAfterWriting(net, g, Reply.Outcome.CREATED, GroupPhase.ACTIVE);
  }

  @Test
  void deletedIsAnsweredBeforeEndedIsDurableAndARestartedLeaderEndsTheGroupAgain() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F", "H");
    net.settle(1_000);
    net.holdDeferredWrites();
    net.delete(g);
    deliverUntilAnswered(net);
    assertAnsweredBeforeWriting(net, g, Reply.Outcome.DELETED, GroupPhase.ENDED, GroupPhase.DELETING);
    assertThat(net.cluster.durable.owners).as("every release is durable").isEmpty();

    net.crash("n1"); // ENDED is lost: the restarted leader sends D again and every member answers DA
    net.restart("n1");
    net.settle(5_000);
    net.cluster.writeDeferred(ScriptedNetwork.node("n1"));
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.ENDED);
    assertThat(net.cluster.durable.owners).isEmpty();
  }

  @Test
  void aCreateThatFailsWithNoRowToReleaseIsEndedDurablyBeforeItsClientHears() {
    ScriptedNetwork net = twoNodes();
    putInAnotherGroupAndHoldDeferredWrites(net, "L");
    GroupId lone = net.create("lone", "L", CreateMode.ATOMIC, "L"); // its leader key is in "other": refused
    net.deliverAll();
    // CREATING straight to ENDED: a restart from CREATING would ask L again, and L may be free by then
    assertAnsweredAfterWriting(net, lone, Reply.Outcome.FAILED, GroupPhase.ENDED);
  }

  @Test
  void yieldIdsRestartAboveTheHighestDurableOne() {
    ScriptedNetwork net = new ScriptedNetwork(new ProtocolConfig(20, 1_000, 64, 4, 600_000), Follower::new,
        "L@n1", "F@n2", "G@n2", "H@n3");
    GroupId g1 = net.create("g1", "L", CreateMode.ATOMIC, "L", "F", "G");
    net.settle(1_000);
    long before = net.owner("G").yieldId().seq();
    net.delete(g1);
    net.settle(1_000);
    assertThat(net.cluster.durable.owners).as("no owner record keeps the old yield id").isEmpty();
    net.crash("n2");
    net.restart("n2");
    net.create("g2", "L", CreateMode.ATOMIC, "L", "F");
    net.settle(1_000);
    assertThat(net.owner("F").yieldId().seq()).isGreaterThan(before);
  }

  @Test
  void leaderKeyMovingDuringCreateCompletesAtItsNewHost() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F", "H");
    net.deliver(net.takeOne(is(Join.class, "F")));
    net.move("L", "n3");
    assertThat(net.lastReply().outcome()).as("the waiting client is told to retry")
        .isEqualTo(Reply.Outcome.NOT_LEADER);
    net.settle(10_000); // JA(F) goes to n1, which answers "not mine"; F re-resolves L and retries
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.ACTIVE);
    assertThat(net.engine("n3").group(g)).isPresent();
    assertThat(net.engine("n1").group(g)).isEmpty();
  }

  @Test
  void messageToAMovedFollowerKeyIsAnsweredNotMineAndReResolved() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    net.settle(1_000);
    net.move("F", "n3");
    net.delete(g);
    Packet d = net.takeOne(is(Delete.class, "F"));
    assertThat(d.to()).as("n1 still believes F is on n2").isEqualTo(ScriptedNetwork.node("n2"));
    net.deliver(d);
    assertThat(net.engine("n2").stats().notMineReceived()).isZero();
    assertThat(net.engine("n1").stats().notMineReceived()).isEqualTo(1);
    net.settle(5_000);
    assertThat(net.ended(g)).isTrue();
    assertThat(net.owner("F")).isNull();
  }

  @Test
  void retriedCreateFindsItsGroupWhileAnotherRequestForTheNameIsRefused() {
    ScriptedNetwork net = twoNodes();
    GroupId g = new GroupId("g", key("L"));
    ClientRequest.Create create = new ClientRequest.Create("r1", g, java.util.Set.of(key("F")), CreateMode.ATOMIC);
    net.request(create);
    net.settle(1_000);
    Step retried = net.request(create);
    assertThat(retried.replies()).singleElement().extracting(Reply::outcome).isEqualTo(Reply.Outcome.CREATED);
    assertThat(retried.changes()).isEmpty();
    Step other = net.request(new ClientRequest.Create("r2", g, java.util.Set.of(key("G")), CreateMode.ATOMIC));
    assertThat(other.replies()).singleElement().extracting(Reply::outcome).isEqualTo(Reply.Outcome.EXISTS);
    assertThat(other.changes()).isEmpty();
  }

  @Test
  void createRetriedAfterItsGroupEndedGetsTheRecordedOutcomeInsteadOfANewGroup() {
    // Found by the simulator (seed 8165 of the first 20,000): a client's retry arrived after the first attempt
    // had failed and the group was gone, and formed a new group its client never knew of.
    ScriptedNetwork net = twoNodes();
    net.create("a", "F", CreateMode.ATOMIC, "F");
    net.settle(1_000);
    ClientRequest.Create create = new ClientRequest.Create("r1", new GroupId("g", key("L")),
        java.util.Set.of(key("F")), CreateMode.ATOMIC);
    net.request(create);
    net.settle(1_000);
    assertThat(net.lastReply().outcome()).isEqualTo(Reply.Outcome.FAILED);
    Step retry = net.request(create);
    assertThat(retry.replies()).singleElement().satisfies(r -> {
      assertThat(r.outcome()).isEqualTo(Reply.Outcome.FAILED);
      assertThat(((Reply.Create) r).message()).contains("atomic creation failed");
    });
    assertThat(retry.changes()).isEmpty();
    assertThat(retry.datagrams()).as("no new group forms").isEmpty();
  }

  @Test
  void deleteRetriedAfterTheGroupEndedIsAnsweredDeleted() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    net.settle(1_000);
    ClientRequest.Delete delete = new ClientRequest.Delete("d1", g);
    net.request(delete);
    net.settle(1_000);
    assertThat(net.request(delete).replies()).singleElement().extracting(Reply::outcome)
        .isEqualTo(Reply.Outcome.DELETED);
  }

  @Test
  void tombstoneOfAnEndedGroupIsRemovedAfterTheRetentionAndTheNameCanBeReused() {
    ScriptedNetwork net = new ScriptedNetwork(new ProtocolConfig(20, 1_000, 64, 16, 5_000), Follower::new,
        "L@n1", "F@n2");
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    net.settle(1_000);
    net.delete(g);
    net.settle(1_000);
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.ENDED);
    GroupId again = net.create("g", "L", CreateMode.ATOMIC, "L");
    net.settle(1_000);
    assertThat(net.group(again).phase()).as("a new request may reuse the name at once").isEqualTo(GroupPhase.ACTIVE);
    net.delete(again);
    net.settle(1_000);
    net.advance(5_000);
    assertThat(net.group(g)).as("the tombstone expired").isNull();
    assertThat(net.engine("n1").nextWakeup()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void groupLargerThanTheMaximumIsRejectedAndChangesNothing() {
    ScriptedNetwork net = new ScriptedNetwork(new ProtocolConfig(20, 1_000, 2, 16, 600_000), Follower::new,
        "L@n1", "F@n2", "G@n2");
    Step step = net.request(new ClientRequest.Create("r", new GroupId("g", key("L")),
        java.util.Set.of(key("F"), key("G")), CreateMode.ATOMIC));
    assertThat(step.replies()).singleElement().satisfies(r -> {
      assertThat(r.outcome()).isEqualTo(Reply.Outcome.INVALID);
      assertThat(((Reply.Create) r).message()).contains("exceeds the maximum group size of 2");
    });
    assertThat(step.changes()).isEmpty();
    assertThat(step.datagrams()).isEmpty();
  }

  @Test
  void deletingAnUnknownGroupIsNotFound() {
    ScriptedNetwork net = twoNodes();
    net.delete(new GroupId("nope", key("L")));
    assertThat(net.lastReply().outcome()).isEqualTo(Reply.Outcome.NOT_FOUND);
  }

  @Test
  void requestToANodeThatDoesNotHostTheLeaderKeyIsNotLeader() {
    ScriptedNetwork net = twoNodes();
    Step step = net.cluster.engine(ScriptedNetwork.node("n2")).handle(
        new ClientRequest.Delete("r", new GroupId("g", key("L"))), 0);
    assertThat(step.replies()).singleElement().extracting(Reply::outcome).isEqualTo(Reply.Outcome.NOT_LEADER);
  }

  @Test
  void messagesForOneServerTravelInOneDatagram() {
    String[] placement = new String[21];
    placement[0] = "L@n1";
    for (int i = 0; i < 20; i++) {
      placement[i + 1] = "k" + i + "@n" + (2 + i % 2);
    }
    ScriptedNetwork net = new ScriptedNetwork(Follower::new, placement);
    String[] members = new String[20];
    for (int i = 0; i < 20; i++) {
      members[i] = "k" + i;
    }
    net.create("big", "L", CreateMode.ATOMIC, members);
    Step create = net.steps.get(0);
    assertThat(create.early()).as("one datagram to each of n2, n3; L joins in the step itself").hasSize(2);
    assertThat(create.early()).filteredOn(d -> d.to().value().equals("n2"))
        .singleElement().satisfies(d -> assertThat(d.messages()).hasSize(10));
  }

  /**
   * {@link #twoNodes()} after a first group came and went: every node has reserved its first block of uids, so
   * early joins are not held back by a reservation.
   */
  private static ScriptedNetwork twoNodesWithUidsReserved() {
    ScriptedNetwork net = twoNodes();
    GroupId warmUp = net.create("warm-up", "L", CreateMode.ATOMIC, "L", "F", "H");
    net.settle(1_000);
    net.delete(warmUp);
    net.settle(1_000);
    assertThat(net.cluster.durable.reservedUids).hasSize(3);
    net.steps.clear();
    net.replies.clear();
    return net;
  }

  @Test
  void theFirstCreateReservesUidsInTheStepWhoseEarlyJoinsCarryThem() {
    ScriptedNetwork net = twoNodes();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    Step create = net.steps.get(0);
    // The engine marks J(F) early and the step as reserving: the writer (StepWriterTest) then holds J(F) back
    // until the reservation is durable, because J(F) carries an epoch of the new block.
    assertThat(create.changes()).first().isEqualTo(new StateChange.ReserveUids(ScriptedNetwork.node("n1"), 1_000));
    assertThat(create.reservesUids()).isTrue();
    assertThat(create.early()).singleElement().satisfies(d -> assertThat(d.messages())
        .containsExactly(new Join(net.group(g).group(), key("F"))));
    assertThat(net.group(g).group().epoch().seq()).as("an id of the block reserved").isLessThanOrEqualTo(1_000);
  }

  @Test
  void theLeaderKeyJoinsInTheCreateStepAndRemoteJoinsLeaveBeforeTheWrite() {
    ScriptedNetwork net = twoNodesWithUidsReserved();
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    Step create = net.steps.get(0);
    assertThat(create.changes()).as("CREATING, without answers, and L's JOINING, in one step")
        .containsExactlyInAnyOrder(
            new StateChange.PutGroup(net.group(g)),
            new StateChange.PutOwner(net.owner("L")));
    assertThat(net.group(g).members(MemberState.Status.PENDING)).containsExactly(key("F"), key("L"));
    assertThat(net.owner("L").group()).isEqualTo(net.group(g).group());
    assertThat(WriteOrder.phases(create.changes())).as("both records written at once").hasSize(1);
    assertThat(create.early()).singleElement()
        .satisfies(d -> assertThat(d.messages()).containsExactly(new Join(net.group(g).group(), key("F"))));
    assertThat(create.datagrams()).isEmpty();
    net.deliverAll();
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.ACTIVE);
  }

  @Test
  void aGroupOfLocalKeysIsCreatedInOneStepWithItsMembersWrittenFirst() {
    ScriptedNetwork net = twoNodesWithUidsReserved();
    GroupId g = net.create("g", "F", CreateMode.ATOMIC, "F", "G");
    Step create = net.steps.get(0);
    assertThat(net.lastReply().outcome()).isEqualTo(Reply.Outcome.CREATED);
    assertThat(net.group(g).phase()).isEqualTo(GroupPhase.ACTIVE);
    assertThat(WriteOrder.phases(create.changes())).as("JOINING records before the ACTIVE record that counts them")
        .extracting(phase -> phase.stream().map(c -> c.getClass().getSimpleName()).distinct().toList())
        .containsExactly(List.of("PutOwner"), List.of("PutGroup"));
    assertThat(create.early()).isEmpty();
    assertThat(create.datagrams()).isEmpty();
  }

  @Test
  void joinsOfAnIncarnationLostBeforeItsCreatingRecordAreFreedAndTheRetriedCreateSucceeds() {
    ScriptedNetwork net = twoNodesWithUidsReserved();
    ClientRequest.Create create = new ClientRequest.Create("retried", new GroupId("g", key("L")),
        java.util.Set.of(key("L"), key("F"), key("G")), CreateMode.ATOMIC);
    net.crashBeforeWriting("n1");
    net.request(create);
    assertThat(net.group(create.group())).as("CREATING was never written").isNull();
    net.deliverAll(); // the early J reach n2: F and G join an incarnation nobody knows; their JAs are lost
    GroupRef lost = net.owner("F").group();
    assertThat(net.owner("G").group()).isEqualTo(lost);

    net.restart("n1");
    net.request(create); // the client's retry: a new incarnation, refused by F and G on behalf of the lost one
    net.settle(10_000);

    Reply reply = net.lastReply();
    assertThat(reply.outcome()).as("%s", reply).isEqualTo(Reply.Outcome.CREATED);
    GroupRecord g = net.group(create.group());
    assertThat(g.group()).isNotEqualTo(lost);
    assertThat(g.members(MemberState.Status.JOINED)).containsExactly(key("F"), key("G"), key("L"));
    assertThat(net.owner("F").group()).isEqualTo(g.group());
  }

  /**
   * A member refused while its group is being created, then freed: a duplicate J joins it late and the leader
   * answers that JA with an unlogged D. The leader key moves before the D arrives. The next host must not count the
   * member joined (it would ask again, get the same yield, and the late D would then free a member of an active
   * group): the refusal that the D stands on is logged before the D leaves. Found by the simulation, seed
   * 10510329928146.
   */
  @Test
  void aLateJoinOfARefusedMemberIsUndoneAndTheRefusalOutlivesALeaderMove() {
    ScriptedNetwork net = twoNodes();
    GroupId other = net.create("other", "G", CreateMode.ATOMIC, "G", "F");
    net.settle(1_000);
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F", "H");
    net.take(is(Join.class, "H")); // lost: g stays CREATING
    Packet joinF = net.takeOne(is(Join.class, "F")); // duplicated by the network: one copy now, one later
    net.deliver(joinF);
    Packet refusal = net.takeOne(is(JoinAck.class, "F"));
    assertThat(((JoinAck) refusal.message()).joined()).isFalse();
    net.deliver(refusal);
    net.deliverAll(); // L's own handshake
    net.delete(other);
    net.deliverAll();
    assertThat(net.owner("F")).as("F is free again").isNull();

    net.deliver(joinF); // the late copy: F joins g
    net.deliver(net.takeOne(is(JoinAck.class, "F"))); // the leader counts F refused and undoes the join
    Packet lateDelete = net.takeOne(is(Delete.class, "F")); // delayed
    net.take(m -> true); // everything else is lost

    net.move("L", "n3");
    net.settle(5_000);
    net.deliver(lateDelete);
    net.settle(5_000);

    GroupRecord record = net.group(g);
    if (record.phase() == GroupPhase.ACTIVE) {
      assertThat(net.owner("F")).as("an active group's joined member is held by it").isNotNull();
    }
    assertThat(record.phase()).as("the refusal stands: the atomic create fails").isEqualTo(GroupPhase.ENDED);
    assertThat(record.failure()).contains("atomic creation failed");
    assertThat(net.cluster.durable.owners).as("no key is left held").isEmpty();
  }

  @Test
  void aKeyHeldByAnotherGroupIsRefusedWithItsHolderAndNotFreed() {
    ScriptedNetwork net = twoNodes();
    GroupId other = net.create("other", "H", CreateMode.ATOMIC, "H", "F");
    net.settle(1_000);
    GroupId g = net.create("g", "L", CreateMode.ATOMIC, "L", "F");
    net.deliver(net.takeOne(is(Join.class, "F")));
    JoinAck refusal = (JoinAck) net.takeOne(is(JoinAck.class, "F")).message();
    assertThat(refusal.joined()).isFalse();
    assertThat(refusal.holder()).isEqualTo(net.group(other).group());
    net.settle(1_000);
    assertThat(net.lastReply().outcome()).isEqualTo(Reply.Outcome.FAILED);
    assertThat(net.owner("F").group()).isEqualTo(net.group(other).group());
    assertThat(net.ended(g)).isTrue();
  }
}
