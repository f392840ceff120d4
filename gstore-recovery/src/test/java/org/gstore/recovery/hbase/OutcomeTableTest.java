package org.gstore.recovery.hbase;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Put;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.Key;
import org.junit.jupiter.api.Test;

class OutcomeTableTest {
  /**
   * Issue 53, hole 5: a group whose name and leader row are near their caps ({@code gstore.group.max.id.chars},
   * {@code gstore.group.max.row.bytes}) made an outcome row past HBase's row length: building its {@code Put}
   * threw, and the shipper quarantined the commit for good without its outcome.
   */
  @Test
  void aGroupAtItsSizeCapsStillHasAnOutcomeRowHBaseTakes() {
    byte[] leaderRow = new byte[Short.MAX_VALUE - 1_024];
    String name = "g".repeat(4_096).replace('g', '\u00e9'); // two UTF-8 bytes a character
    GroupId big = new GroupId(name, Key.of("players", leaderRow));
    Put put = OutcomeTable.put(big, "txn-1", 42);
    assertThat(put.getRow().length).isLessThanOrEqualTo(HConstants.MAX_ROW_LENGTH);

    byte[] otherRow = leaderRow.clone();
    otherRow[otherRow.length - 1] = 1;
    assertThat(OutcomeTable.row(new GroupId(name, Key.of("players", otherRow)), "txn-1"))
        .as("another group's row differs").isNotEqualTo(put.getRow());
    assertThat(OutcomeTable.row(big, "txn-2")).isNotEqualTo(put.getRow());
    assertThat(OutcomeTable.row(big, "txn-1")).as("the same transaction finds its row").isEqualTo(put.getRow());
  }

  @Test
  void aSmallGroupKeepsTheRowsEarlierReleasesWrote() {
    GroupId small = new GroupId("game-1", Key.of("players", new byte[] {7}));
    byte[] row = OutcomeTable.row(small, "t");
    // length-prefixed: txn id, table, leader row, name (rows written before stay readable after an upgrade)
    assertThat(Arrays.copyOfRange(row, 0, 5)).containsExactly(0, 0, 0, 1, 't');
    assertThat(row).hasSize(4 + 1 + 4 + 7 + 4 + 1 + 4 + 6);
  }
}
