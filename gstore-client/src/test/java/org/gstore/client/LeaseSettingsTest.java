package org.gstore.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** A lease the leader would refuse is refused where it is set: in the spec, or when the client is made. */
class LeaseSettingsTest {
  @Test
  void aSpecRefusesALeaseOutsideOneSecondToSevenDays() {
    GroupSpec.Builder b = GroupSpec.builder().id("g").leader(org.apache.hadoop.hbase.TableName.valueOf("t"),
        new byte[] {1});
    for (Duration bad : new Duration[] {Duration.ofMillis(-1), Duration.ofMillis(999), Duration.ofNanos(1),
        Duration.ofDays(7).plusMillis(1), null}) {
      assertThatThrownBy(() -> b.lease(bad)).as("lease " + bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("1 s to 7 days");
    }
    assertThat(b.lease(Duration.ZERO).build().lease()).isZero();
    assertThat(b.lease(Duration.ofSeconds(1)).build().lease()).isEqualTo(Duration.ofSeconds(1));
    assertThat(b.lease(Duration.ofDays(7)).build().lease()).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void theClientsDefaultLeaseIsCheckedWhenTheClientIsMade() {
    Configuration conf = new Configuration(false);
    conf.setLong(GStoreClient.GROUP_LEASE, 500);
    assertThatThrownBy(() -> ClientSettings.from(conf)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(GStoreClient.GROUP_LEASE).hasMessageContaining("500 ms is outside");
    conf.setLong(GStoreClient.GROUP_LEASE, 0);
    assertThat(ClientSettings.from(conf).defaultLease()).isZero();
  }
}
