package org.gstore.recovery.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which region servers HBase counts as alive, from the znodes under {@code /rs}. */
class LiveServersTest {
  @Test
  void aServerRestartedOnTheSameAddressEndsItsEarlierInstanceThoughThatOnesZnodeLingers() {
    // killed and started again within its ZooKeeper session: the master expires the earlier instance at once
    assertThat(LiveServers.of(List.of("rs1,16020,1000", "rs1,16020,2000", "rs2,16020,1500")))
        .containsExactlyInAnyOrder("rs1,16020,2000", "rs2,16020,1500");
  }

  @Test
  void serversOnOtherPortsOfTheSameHostAreAllAlive() {
    assertThat(LiveServers.of(List.of("rs1,16020,1000", "rs1,16021,900")))
        .containsExactlyInAnyOrder("rs1,16020,1000", "rs1,16021,900");
  }

  @Test
  void aNameThatIsNoServerNameIsKeptAsItIs() {
    assertThat(LiveServers.of(List.of("not-a-server", "rs1,16020,1000")))
        .containsExactlyInAnyOrder("not-a-server", "rs1,16020,1000");
  }
}
