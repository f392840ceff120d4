package org.gstore.coprocessor.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.junit.jupiter.api.Test;

class GStoreMetricsTest {
  @Test
  void theRegistryOutlivesTheLastRegionSoItsExporterNeverKeepsADeadOne() {
    MetricRegistryInfo info = new MetricRegistryInfo("GStoreMetricsTest", "test", "GStoreMetricsTest", "test", false);
    MetricRegistry regions = MetricRegistries.global().create(info); // as HBase makes it for a region's coprocessor
    MetricRegistry held = GStoreMetrics.held(regions);
    assertThat(held).isSameAs(regions);

    MetricRegistries.global().remove(info); // the JVM's last G-Store region closed
    assertThat(MetricRegistries.global().get(info)).containsSame(held);
    assertThat(MetricRegistries.global().create(info)).as("the next region's registry").isSameAs(held);
    assertThat(GStoreMetrics.held(held)).isSameAs(held);
  }

  @Test
  void aRegistryMadeAgainAfterHBaseClearedThemIsHeldInstead() {
    MetricRegistryInfo info = new MetricRegistryInfo("GStoreMetricsTest2", "test", "GStoreMetricsTest2", "test", false);
    MetricRegistry first = GStoreMetrics.held(MetricRegistries.global().create(info));
    MetricRegistries.global().remove(info);
    MetricRegistries.global().remove(info); // gone, as after MetricRegistries.clear()
    MetricRegistry again = MetricRegistries.global().create(info);
    assertThat(again).isNotSameAs(first);
    assertThat(GStoreMetrics.held(again)).isSameAs(again);
  }
}
