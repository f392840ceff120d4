package org.gstore.common.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.Key;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class StateRowsTest {
  private static byte[] randomRow(Random r) {
    byte[] row = new byte[r.nextInt(6)];
    for (int i = 0; i < row.length; i++) {
      row[i] = (byte) (r.nextInt(4) == 0 ? 0 : r.nextInt(4) == 0 ? 0xff : r.nextInt(256));
    }
    return row;
  }

  @Test
  void encodingPreservesRowOrderEvenWithZeroAndFfBytes() {
    Random r = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      byte[] a = randomRow(r);
      byte[] b = randomRow(r);
      int rows = Integer.signum(Bytes.compareTo(a, b));
      int encoded = Integer.signum(Bytes.compareTo(StateRows.owner(Key.of("t", a)), StateRows.owner(Key.of("t", b))));
      assertThat(encoded).as("%s vs %s", Bytes.toStringBinary(a), Bytes.toStringBinary(b)).isEqualTo(rows);
    }
  }

  @Test
  void aRegionsRangeHoldsTheStateOfExactlyItsRows() {
    Random r = new Random(11);
    for (int i = 0; i < 5_000; i++) {
      byte[] start = randomRow(r);
      byte[] end = r.nextInt(5) == 0 ? new byte[0] : randomRow(r);
      if (end.length > 0 && Bytes.compareTo(start, end) >= 0) {
        continue;
      }
      byte[] low = StateRows.rangeStart("t", start);
      byte[] high = StateRows.rangeStop("t", end);
      for (int j = 0; j < 20; j++) {
        byte[] row = randomRow(r);
        boolean inRegion = Bytes.compareTo(row, start) >= 0 && (end.length == 0 || Bytes.compareTo(row, end) < 0);
        List<byte[]> stateRows = new ArrayList<>();
        stateRows.add(StateRows.owner(Key.of("t", row)));
        stateRows.add(StateRows.group(new GroupId("g\u00e9", Key.of("t", row))));
        for (byte[] s : stateRows) {
          boolean inScan = Bytes.compareTo(s, low) >= 0 && Bytes.compareTo(s, high) < 0;
          assertThat(inScan).as("row %s in [%s, %s)", Bytes.toStringBinary(row), Bytes.toStringBinary(start),
              Bytes.toStringBinary(end)).isEqualTo(inRegion);
        }
      }
    }
  }

  @Test
  void otherTablesNeverFallInARange() {
    byte[] low = StateRows.rangeStart("t", new byte[0]);
    byte[] high = StateRows.rangeStop("t", new byte[0]);
    for (String table : List.of("s", "t2", "ta", "u", "t_")) {
      byte[] s = StateRows.owner(Key.of(table, new byte[] {0}));
      assertThat(Bytes.compareTo(s, low) >= 0 && Bytes.compareTo(s, high) < 0).as(table).isFalse();
    }
  }
}
