package org.gstore.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.junit.jupiter.api.Test;

/** The ledger's books on quarantined commits, which the alerts read. */
class ShipmentLedgerTest {
  private static final GroupRef GROUP = new GroupRef(new GroupId("g", Key.of("t", "leader")),
      new Uid(new NodeId("n"), 1));
  private final List<Shipment> shippedAgain = new ArrayList<>();
  private final ShipmentLedger ledger = new ShipmentLedger(true, 1, shippedAgain::add);

  @Test
  void aQuarantinedCommitShippedAgainStaysQuarantinedUntilItLandsAndIsNoShippingLag() {
    Shipment refused = new Shipment(GROUP, 1_000, "t1", List.of(), new WalPosition(0, 0));
    ledger.handOver(refused);
    ledger.refused(refused, "planted: family dropped");
    assertThat(ledger.quarantinedCount()).isEqualTo(1);
    assertThat(ledger.pendingCount(GROUP)).as("still held: the group's deletes and closes wait for it").isEqualTo(1);
    assertThat(ledger.quarantineCause(GROUP)).contains("planted: family dropped");

    assertThat(ledger.retryQuarantined(60_000)).isEqualTo(1);
    assertThat(shippedAgain).containsExactly(refused);
    assertThat(ledger.quarantinedCount()).as("HBase still lacks it: the alert stays COMMIT_QUARANTINED")
        .isEqualTo(1);
    assertThat(ledger.quarantineCause(GROUP)).isPresent();
    assertThat(ledger.lagMillis(120_000)).as("not a SHIPPING_BLOCKED lag, although it is queued and old")
        .isZero();

    Shipment fresh = new Shipment(GROUP, 100_000, "t2", List.of(), new WalPosition(0, 1));
    ledger.handOver(fresh);
    assertThat(ledger.lagMillis(120_000)).as("a commit waiting behind it is").isEqualTo(20_000);

    ledger.refused(refused, "planted: family dropped"); // still refused: back in quarantine
    assertThat(ledger.quarantinedCount()).isEqualTo(1);
    assertThat(ledger.retryQuarantined(120_000)).isEqualTo(1);
    ledger.shipped(List.of(refused, fresh), ledger.epoch()); // its cause fixed: it landed
    assertThat(ledger.quarantinedCount()).isZero();
    assertThat(ledger.quarantineCause(GROUP)).isEmpty();
    assertThat(ledger.pendingCount(GROUP)).isZero();
    assertThat(ledger.lagMillis(120_000)).isZero();
  }

  /**
   * Quarantined commits are shipped again in commit order, not in the order HBase refused them: a commit shipped
   * again after a death can be refused after a later commit of its group was, and the later one, shipped first,
   * would land ahead of it (found by the recovery simulation, seed 8000004533).
   */
  @Test
  void quarantinedCommitsAreShippedAgainInCommitOrder() {
    Shipment earlier = new Shipment(GROUP, 1_000, "t1", List.of(), new WalPosition(0, 0));
    Shipment later = new Shipment(GROUP, 2_000, "t2", List.of(), new WalPosition(0, 1));
    ledger.handOver(earlier);
    ledger.handOver(later);
    ledger.refused(later, "planted: family dropped");
    ledger.refused(earlier, "planted: family dropped");
    assertThat(ledger.retryQuarantined(60_000)).isEqualTo(2);
    assertThat(shippedAgain).containsExactly(earlier, later);
  }

  @Test
  void aLaterCommitOfTheGroupIsHeldBehindAQuarantinedOneUnlessTheyLandTogether() {
    Shipment earlier = new Shipment(GROUP, 1_000, "t1", List.of(), new WalPosition(0, 0));
    Shipment later = new Shipment(GROUP, 2_000, "t2", List.of(), new WalPosition(0, 1));
    GroupRef other = new GroupRef(new GroupId("h", Key.of("t", "other")), new Uid(new NodeId("n"), 1));
    Shipment otherGroup = new Shipment(other, 3_000, "t3", List.of(), new WalPosition(0, 2));
    ledger.handOver(earlier);
    ledger.handOver(later);
    ledger.handOver(otherGroup);
    ledger.refused(earlier, "planted: family dropped");
    assertThat(ledger.quarantineBehindEarlier(otherGroup, Set.of())).as("another group's commit ships").isFalse();
    assertThat(ledger.quarantineBehindEarlier(earlier, Set.of())).as("nothing earlier holds the quarantined one")
        .isFalse();
    assertThat(ledger.quarantineBehindEarlier(later, Set.of())).isTrue();
    assertThat(ledger.shippedThrough(GROUP, 1_000)).as("the refused one's outcome row went first").isTrue();
    assertThat(ledger.shippedThrough(GROUP, 2_000))
        .as("the held one was never sent: no outcome row, so a retry must not look it up yet").isFalse();
    assertThat(ledger.quarantinedCount()).isEqualTo(2);
    assertThat(ledger.refusals()).as("HBase refused one").isEqualTo(1);
    assertThat(ledger.quarantineCause(GROUP)).get().asString().contains("planted: family dropped");
    assertThat(ledger.pendingCount(GROUP)).as("both held").isEqualTo(2);
    assertThat(ledger.walNeededAbove(0)).as("the WAL keeps both").isEqualTo(-1);

    ledger.retryQuarantined(60_000); // both shipped again, in one batch: the later one lands with the earlier one
    assertThat(ledger.quarantineBehindEarlier(later, Set.of(earlier, later))).isFalse();
    assertThat(ledger.quarantineBehindEarlier(later, Set.of()))
        .as("but not past it while it is shipped again elsewhere (a slow shipper's queue)").isTrue();
    ledger.shipped(List.of(earlier), ledger.epoch());
    assertThat(ledger.quarantineCause(GROUP)).as("the later one waits for the next retry").isPresent();
    assertThat(ledger.retryQuarantined(120_000)).isEqualTo(1);
    ledger.shipped(List.of(later), ledger.epoch());
    assertThat(ledger.quarantinedCount()).isZero();
    assertThat(ledger.pendingCount(GROUP)).isZero();
  }

  /**
   * A group's shipments are numbered in commit order, whatever order they are acknowledged in. A commit sent back
   * (its acknowledgement distrusted, while the shipper shipped a refused batch one commit at a time) must not let a
   * later commit of its group be numbered before it: the later one, persisted and forgotten first, would leave the
   * earlier one to be shipped again alone after a death, and if HBase then refused it past the delete markers'
   * retention, a value the later commit deleted would come back when it landed.
   */
  @Test
  void aLaterCommitIsNotNumberedBeforeAnEarlierOneOfItsGroupSentBack() {
    ShipmentLedger async = new ShipmentLedger(false, 1, shippedAgain::add);
    Shipment earlier = new Shipment(GROUP, 1_000, "t1", List.of(), new WalPosition(0, 0));
    Shipment later = new Shipment(GROUP, 2_000, "t2", List.of(), new WalPosition(0, 1));
    async.handOver(earlier);
    async.handOver(later);
    long sentAt = async.epoch();
    async.distrust();
    async.shipped(List.of(earlier), sentAt);
    assertThat(shippedAgain).as("its acknowledgement is distrusted").containsExactly(earlier);

    async.shipped(List.of(later), async.epoch());
    assertThat(async.shippedThrough()).as("the later commit is not numbered ahead of the earlier").isEqualTo(-1);
    assertThat(shippedAgain).as("it lands again, after the earlier").containsExactly(earlier, later);
    assertThat(async.waitsToShip(later)).isTrue();

    async.shipped(List.of(later, earlier), async.epoch()); // one batch, whatever its order: numbered in commit order
    async.forgetPersistedThrough(0);
    assertThat(async.pendingCount(GROUP)).as("shipment 0 is the earlier commit").isEqualTo(1);
    assertThat(async.unpersistedOf(GROUP)).containsExactly(later);
  }

  /**
   * A commit can be queued twice (sent back, and its batch queued again after the shipping threw): the second copy
   * must not be numbered again. With SYNC_WAL it released the group's hold a second time, which let a drain pass
   * while another commit of the group was still held.
   */
  @Test
  void aSecondCopyOfALandedCommitIsNotCountedAgain() {
    Shipment first = new Shipment(GROUP, 1_000, "t1", List.of(), new WalPosition(0, 0));
    Shipment held = new Shipment(GROUP, 2_000, "t2", List.of(), new WalPosition(0, 1));
    ledger.handOver(first);
    ledger.handOver(held);
    ledger.shipped(List.of(first), ledger.epoch());
    assertThat(ledger.waitingAmong(List.of(first, held, held))).containsExactly(held);
    ledger.shipped(List.of(first), ledger.epoch()); // the copy
    assertThat(ledger.shippedThrough()).isEqualTo(0);
    assertThat(ledger.pendingCount(GROUP)).as("the second commit is still held").isEqualTo(1);
  }
}
