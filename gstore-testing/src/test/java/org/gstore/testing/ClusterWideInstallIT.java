package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupCreationException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.RowGroupedException;
import org.gstore.coprocessor.GStoreRegionCoprocessor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * G-Store installed the way an operator adds it to an existing cluster: one line in {@code hbase-site.xml}, no
 * change to any table. Runs its own small cluster, since the shared one installs G-Store per table.
 */
class ClusterWideInstallIT {
  private static final byte[] CF = Bytes.toBytes("f");

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void everyUserTableRunsGStoreAndSystemTablesAreLeftAlone() throws Exception {
    Map<String, String> siteXml = Map.of(CoprocessorHost.USER_REGION_COPROCESSOR_CONF_KEY,
        GStoreRegionCoprocessor.class.getName());
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(2, siteXml);
        GStoreClient client = GStoreClient.create(cluster.getConfiguration())) {
      TableName existing = TableName.valueOf("existing_app_table");
      try (Table table = cluster.getTestingUtility().createTable(existing, CF, TestRows.splits(2))) {
        table.put(new Put(TestRows.row(3)).addColumn(CF, Bytes.toBytes("q"), Bytes.toBytes("before")));
        KeyGroup g = client.createGroup(GroupSpec.builder().id("site-wide")
            .members(existing, List.of(TestRows.row(3), TestRows.row(7))).build());
        assertThat(g.members()).hasSize(2);
        assertThatThrownBy(() -> table.put(new Put(TestRows.row(7)).addColumn(CF, Bytes.toBytes("q"),
            Bytes.toBytes("x")))).isInstanceOf(RowGroupedException.class);
        g.delete();
        table.put(new Put(TestRows.row(7)).addColumn(CF, Bytes.toBytes("q"), Bytes.toBytes("after")));
      }
      assertThat(client.servesTable(existing)).isTrue();

      // Also named in its descriptor, G-Store is loaded twice on each region: the second instance stands aside
      TableName both = TableName.valueOf("attribute_too");
      long loadsBefore = counter("regionStateLoads");
      cluster.getTestingUtility().getAdmin().createTable(TableDescriptorBuilder.newBuilder(both)
          .setCoprocessor(GStoreRegionCoprocessor.class.getName())
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build(), TestRows.splits(2));
      int regions = cluster.getTestingUtility().getAdmin().getRegions(both).size();
      await().atMost(30, TimeUnit.SECONDS).until(() -> counter("regionStateLoads") >= loadsBefore + regions);
      KeyGroup twice = client.createGroup(GroupSpec.builder().id("loaded-twice")
          .members(both, List.of(TestRows.row(2), TestRows.row(8))).build());
      try (Table table = cluster.getConnection().getTable(both)) {
        assertThatThrownBy(() -> table.put(new Put(TestRows.row(8)).addColumn(CF, Bytes.toBytes("q"),
            Bytes.toBytes("x")))).isInstanceOf(RowGroupedException.class);
      }
      twice.delete();
      assertThat(counter("regionStateLoads") - loadsBefore).as("group state loads of %d regions", regions)
          .isEqualTo(regions);

      assertThatThrownBy(() -> client.createGroup(GroupSpec.builder().member(TableName.valueOf("gstore:owners"),
          Bytes.toBytes("x")).leader(existing, TestRows.row(1)).build()))
          .isInstanceOf(GroupCreationException.class).hasMessageContaining("system table");
    }
  }

  /** A G-Store counter, summed over the region servers (they share one registry in this JVM). */
  private static long counter(String name) {
    long sum = 0;
    for (MetricRegistry registry : MetricRegistries.global().getMetricRegistries()) {
      if (registry.getMetricRegistryInfo().getMetricsJmxContext().contains("GStoreRegionCoprocessor")) {
        sum += registry.get(name).map(m -> ((Counter) m).getCount()).orElse(0L);
      }
    }
    return sum;
  }
}
