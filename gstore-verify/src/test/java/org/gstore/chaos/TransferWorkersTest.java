package org.gstore.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.apache.hadoop.hbase.TableName;
import org.junit.jupiter.api.Test;

class TransferWorkersTest {
  private static Bank bank(int groups) {
    return new Bank(TableName.valueOf("b"), groups, 8, 1_000);
  }

  @Test
  void moreWorkersThanGroupsShareEachGroupSoTheirTransfersConflict() {
    TransferWorkers workers = new TransferWorkers(bank(4), 8);
    assertThat(IntStream.range(0, 8).mapToObj(workers::groupsOf).toList())
        .containsExactly(List.of(0), List.of(1), List.of(2), List.of(3), List.of(0), List.of(1), List.of(2),
            List.of(3));
  }

  @Test
  void fewerWorkersThanGroupsSplitTheGroupsWithNoneSharedAndNoneLeftOut() {
    TransferWorkers workers = new TransferWorkers(bank(8), 3);
    assertThat(IntStream.range(0, 3).mapToObj(workers::groupsOf).toList())
        .containsExactly(List.of(0, 3, 6), List.of(1, 4, 7), List.of(2, 5));
    assertThat(TransferWorkers.name(2)).isEqualTo("chaos-transfers-2");
  }

  @Test
  void oddGroupsKeepToTheirLeadersSlotAndEvenOnesSpreadOverAllEight() {
    Bank bank = bank(4);
    assertThat(bank.rows(1)).allSatisfy(row -> assertThat(new String(row)).startsWith("s2-"));
    assertThat(bank.rows(0).stream().map(row -> new String(row).substring(0, 2)).distinct()).hasSize(8);
  }
}
