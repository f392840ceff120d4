package org.gstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.gstore.client.RecoveryStatus;
import org.junit.jupiter.api.Test;

/** How {@code gstore status} shows the servers, the one most behind, and their alerts. */
class StatusReportTest {
  @Test
  void aServerWithActiveAlertsGetsALineNamingThem() {
    String report = StatusReport.render(new RecoveryStatus(List.of(
        new RecoveryStatus.Server("rs1,16020,1", "alive", 12, 10, 2, 4_096, Set.of()),
        new RecoveryStatus.Server("rs2,16020,1", "alive", 40, 7, 3, 8_192,
            Set.of("SHIPPING_BLOCKED", "COMMIT_QUARANTINED")))));

    assertThat(report).contains("rs1,16020,1").contains("rs2,16020,1")
        .contains("ALERT rs2,16020,1: COMMIT_QUARANTINED, SHIPPING_BLOCKED")
        .doesNotContain("ALERT rs1")
        .contains("Most behind: rs2,16020,1, 33 shipments");
  }

  @Test
  void aClusterWithoutAlertsShowsNone() {
    assertThat(StatusReport.render(new RecoveryStatus(List.of(
        new RecoveryStatus.Server("rs1,16020,1", "alive", -1, -1, 1, 0, Set.of()))))).doesNotContain("ALERT")
        .doesNotContain("Most behind");
  }
}
