package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Set;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.awaitility.Awaitility;
import org.gstore.common.protocol.NodeId;
import org.junit.jupiter.api.Test;

class TestFaultsTest {
  private static final NodeId PEER = new NodeId("rs2");
  private static final NodeId OTHER = new NodeId("rs3");

  @Test
  void aServerWithoutTheKeyRefusesTestFaultsAndSaysWhy() {
    TestFaults off = new TestFaults(false, () -> 1_000);
    assertThatThrownBy(() -> off.inject(Set.of(PEER), 5_000, 1_000)).isInstanceOf(DoNotRetryIOException.class)
        .hasMessageContaining("gstore.test.faults.enabled").hasMessageContaining("test clusters only");
    assertThat(off.drops(PEER)).isFalse();
    assertThat(off.now()).isEqualTo(1_000);
  }

  @Test
  void aFaultDropsDatagramsToItsPeersAndMovesTheClockUntilItEndsByItself() throws Exception {
    TestFaults on = new TestFaults(true, () -> 1_000);
    on.inject(Set.of(PEER), -20_000, 300);
    assertThat(on.drops(PEER)).isTrue();
    assertThat(on.drops(OTHER)).isFalse();
    assertThat(on.now()).isEqualTo(-19_000);
    Awaitility.await("the fault ends by itself").atMost(Duration.ofSeconds(5))
        .until(() -> !on.drops(PEER) && on.now() == 1_000);
  }

  @Test
  void aSkewBeyondWhatHBaseToleratesIsRefused() {
    TestFaults on = new TestFaults(true, () -> 0);
    assertThatThrownBy(() -> on.inject(Set.of(), 30_001, 1_000)).isInstanceOf(DoNotRetryIOException.class)
        .hasMessageContaining("at most 30000 ms");
  }
}
