package org.gstore.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
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
    assertThat(ledger.hasQuarantined(GROUP)).isTrue();
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
    assertThat(ledger.hasQuarantined(GROUP)).isFalse();
    assertThat(ledger.pendingCount(GROUP)).isZero();
    assertThat(ledger.lagMillis(120_000)).isZero();
  }
}
