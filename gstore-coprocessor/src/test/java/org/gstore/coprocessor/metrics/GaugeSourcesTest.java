package org.gstore.coprocessor.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.gstore.common.protocol.ProtocolStats;
import org.gstore.recovery.PersistenceHeartbeat;
import org.gstore.recovery.ShipmentLedger;
import org.gstore.recovery.ThresholdAlerts;
import org.junit.jupiter.api.Test;

class GaugeSourcesTest {
  private final MetricRegistry registry = MetricRegistries.global().create(
      new MetricRegistryInfo("GaugeSourcesTest", "test", "GaugeSourcesTest", "test", false));
  private final GaugeSources sources = GaugeSources.of(registry);

  @Test
  void serversSharingAJvmAddUpAndAClosedServerIsNoLongerRead() {
    GaugeSources.Server leader = server(2, 5, 11);
    GaugeSources.Server member = server(0, 7, 22);
    sources.add(leader);
    sources.add(member);
    assertThat(read("groupsLed")).isEqualTo(2);
    assertThat(read("rowsFenced")).isEqualTo(12);
    assertThat(read("shipperShippedThrough")).as("a log position: the newest server's").isEqualTo(-1);

    sources.remove(leader);
    assertThat(read("groupsLed")).isZero();
    assertThat(read("rowsFenced")).isEqualTo(7);
    sources.remove(member);
    assertThat(read("walFiles")).isZero();
    assertThat(read("protocolRetryTimeoutMillis")).isZero();
  }

  @Test
  void everyGaugeReadsWithServersPresentAndWithNone() {
    GaugeSources.Server server = server(1, 1, 1);
    sources.add(server);
    assertThat(registry.getMetrics()).isNotEmpty().allSatisfy((name, metric) ->
        assertThat(((Gauge<?>) metric).getValue()).as(name).isNotNull());
    sources.remove(server);
    assertThat(registry.getMetrics()).allSatisfy((name, metric) ->
        assertThat(((Gauge<?>) metric).getValue()).as(name).isNotNull());
  }

  @Test
  void aServerWithoutOneOfItsPartsIsRefused() {
    assertThatNullPointerException().isThrownBy(() -> new GaugeSources.Server(ProtocolStats::new, () -> 0, () -> 0,
        () -> 0, () -> 0, new ShipmentLedger(true, 1, s -> { }), null, new ThresholdAlerts(1, 1), () -> 0, () -> 0));
  }

  @Test
  void theGaugesAreRegisteredOncePerRegistry() {
    assertThat(GaugeSources.of(registry)).isSameAs(sources);
    assertThat(registry.get("groupsLed")).isPresent();
  }

  private static GaugeSources.Server server(int groupsLed, int fencedRows, long walFiles) {
    ShipmentLedger ledger = new ShipmentLedger(true, 1, s -> { });
    PersistenceHeartbeat heartbeat = new PersistenceHeartbeat("rs", "log", null, () -> { }, ledger,
        (neededAbove, retain) -> 0, System::currentTimeMillis, 600_000, 0);
    return new GaugeSources.Server(ProtocolStats::new, () -> 0, () -> groupsLed, () -> fencedRows, () -> 0, ledger,
        heartbeat, new ThresholdAlerts(60_000, 60_000), () -> walFiles, () -> 0);
  }

  @SuppressWarnings("unchecked")
  private long read(String gauge) {
    return ((Gauge<Long>) registry.get(gauge).orElseThrow()).getValue();
  }
}
