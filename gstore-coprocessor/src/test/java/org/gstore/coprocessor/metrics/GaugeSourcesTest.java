package org.gstore.coprocessor.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.gstore.common.protocol.ProtocolStats;
import org.gstore.recovery.ShipmentLedger;
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
  void theGaugesAreRegisteredOncePerRegistry() {
    assertThat(GaugeSources.of(registry)).isSameAs(sources);
    assertThat(registry.get("groupsLed")).isPresent();
  }

  private static GaugeSources.Server server(int groupsLed, int fencedRows, long walFiles) {
    return new GaugeSources.Server(ProtocolStats::new, () -> 0, () -> groupsLed, () -> fencedRows, () -> 0,
        new ShipmentLedger(true, 1, s -> { }), null, null, () -> walFiles, () -> 0);
  }

  @SuppressWarnings("unchecked")
  private long read(String gauge) {
    return ((Gauge<Long>) registry.get(gauge).orElseThrow()).getValue();
  }
}
