package org.gstore.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerCallsTest {
  private static ServerCalls.Sample sample(Map<String, long[]> servers) {
    return new ServerCalls.Sample(servers);
  }

  @Test
  void eachServersGrowthIsSummedAndDividedByTheWindowsOperations() {
    ServerCalls.Sample before = sample(Map.of("rs1,1", new long[] {10, 2, 10, 4}, "rs2,1", new long[] {0, 0, 0, 0}));
    ServerCalls.Sample after = sample(Map.of("rs1,1", new long[] {30, 2, 20, 8}, "rs2,1", new long[] {10, 4, 10, 4}));

    ServerCalls.PerOp perOp = before.perOp(after, 10);

    assertThat(perOp.known()).isTrue();
    assertThat(perOp.rpc()).isEqualTo(3.0);
    assertThat(perOp.walSyncs()).isEqualTo(0.4);
    assertThat(perOp.namenode()).isEqualTo(2.0);
    assertThat(perOp.datagrams()).isEqualTo(0.8);
  }

  @Test
  void aCounterThatWentDownMakesTheWindowUnknownEvenWhenTheSumGrew() {
    ServerCalls.Sample before = sample(Map.of("rs1,1", new long[] {100, 0, 0, 0}, "rs2,1", new long[] {5, 0, 0, 0}));
    ServerCalls.Sample after = sample(Map.of("rs1,1", new long[] {1, 0, 0, 0}, "rs2,1", new long[] {500, 0, 0, 0}));

    assertThat(before.perOp(after, 10).known()).isFalse();
  }

  @Test
  void aServerThatLeftOrRestartedOrAnUnreadSampleMakesTheWindowUnknown() {
    ServerCalls.Sample before = sample(Map.of("rs1,1", new long[] {1, 1, 1, 1}));
    ServerCalls.Sample restarted = sample(Map.of("rs1,2", new long[] {9, 9, 9, 9}));

    assertThat(before.perOp(restarted, 10).known()).as("another start code").isFalse();
    assertThat(before.perOp(ServerCalls.Sample.NONE, 10).known()).isFalse();
    assertThat(ServerCalls.Sample.NONE.perOp(before, 10).known()).isFalse();
    assertThat(before.perOp(before, 0).known()).as("no operation").isFalse();
    assertThat(ServerCalls.PerOp.UNKNOWN.line()).startsWith("n/a");
  }
}
