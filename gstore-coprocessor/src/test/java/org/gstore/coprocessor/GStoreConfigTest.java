package org.gstore.coprocessor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class GStoreConfigTest {
  private static Configuration valid() {
    Configuration conf = new Configuration(false);
    conf.set(GStoreConfig.CLUSTER_SECRET, "sixteen-bytes-or-more");
    return conf;
  }

  @Test
  void defaultsApplyWhenOnlyTheSecretIsSet() {
    GStoreConfig c = GStoreConfig.from(valid());
    assertThat(c.udpPort()).isZero();
    assertThat(c.protocol().retryInitialMillis()).isEqualTo(20);
    assertThat(c.protocol().maxGroupSize()).isEqualTo(1_000);
    assertThat(c.protocol().endedRetentionMillis()).isEqualTo(600_000);
  }

  @Test
  void missingOrShortSecretFailsNamingTheKey() {
    assertThatThrownBy(() -> GStoreConfig.from(new Configuration(false)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(GStoreConfig.CLUSTER_SECRET);
    Configuration conf = new Configuration(false);
    conf.set(GStoreConfig.CLUSTER_SECRET, "short");
    assertThatThrownBy(() -> GStoreConfig.from(conf)).hasMessageContaining("at least 16 bytes");
  }

  @Test
  void badNumbersFailNamingTheKeyAndTheValue() {
    Configuration conf = valid();
    conf.set(GStoreConfig.GROUP_MAX_SIZE, "lots");
    assertThatThrownBy(() -> GStoreConfig.from(conf)).hasMessageContaining(GStoreConfig.GROUP_MAX_SIZE)
        .hasMessageContaining("'lots'");
    Configuration range = valid();
    range.set(GStoreConfig.UDP_PORT, "70000");
    assertThatThrownBy(() -> GStoreConfig.from(range)).hasMessageContaining(GStoreConfig.UDP_PORT)
        .hasMessageContaining("70000");
    Configuration backwards = valid();
    backwards.set(GStoreConfig.RETRY_INITIAL_MS, "500");
    backwards.set(GStoreConfig.RETRY_MAX_MS, "100");
    assertThatThrownBy(() -> GStoreConfig.from(backwards)).hasMessageContaining(GStoreConfig.RETRY_MAX_MS);
  }

  @Test
  void clusterWideInstallationIsRecognisedInEitherKeyWithPriorityAndPath() {
    Configuration conf = new Configuration(false);
    conf.set("hbase.coprocessor.user.region.classes",
        "com.example.Other, " + GStoreRegionCoprocessor.class.getName() + "|1073741823");
    assertThat(TableGuard.lists(conf, "hbase.coprocessor.user.region.classes")).isTrue();
    assertThat(TableGuard.lists(conf, "hbase.coprocessor.region.classes")).isFalse();
  }
}
