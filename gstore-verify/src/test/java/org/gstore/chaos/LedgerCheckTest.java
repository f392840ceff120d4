package org.gstore.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The chaos run's verdict catches each way a run can go wrong, and passes a run that went right. */
@Timeout(10)
class LedgerCheckTest {
  private final Bank bank = new Bank(TableName.valueOf("bank"), 1, 3, 100);
  private final Bank.Transfer first = new Bank.Transfer("w0-0", bank.row(0, 0), bank.row(0, 1), 30);
  private final Bank.Transfer second = new Bank.Transfer("w0-1", bank.row(0, 1), bank.row(0, 2), 50);

  @Test
  void aRunWhereEveryTransferWasAppliedOncePasses() {
    LedgerCheck.Result r = LedgerCheck.check(bank, rows(new long[] {70, 80, 150}, first, second),
        List.of(first, second));
    assertThat(r.ok()).isTrue();
    assertThat(r.transfersApplied()).isEqualTo(2);
  }

  @Test
  void anUnacknowledgedTransferMayBeThereOrNot() {
    assertThat(LedgerCheck.check(bank, rows(new long[] {70, 130, 100}, first), List.of()).ok()).isTrue();
  }

  @Test
  void anAcknowledgedTransferMissingFromTheLedgerIsLost() {
    LedgerCheck.Result r = LedgerCheck.check(bank, rows(new long[] {70, 130, 100}, first), List.of(first, second));
    assertThat(r.lost()).isEqualTo(1);
    assertThat(r.ok()).isFalse();
  }

  @Test
  void aTransferAppliedTwiceIsCaughtByTheBalances() {
    // both sides moved twice (so the group total still holds), one ledger entry (its id is one column)
    LedgerCheck.Result r = LedgerCheck.check(bank, rows(new long[] {40, 160, 100}, first), List.of(first));
    assertThat(r.accountsOff()).isEqualTo(2);
    assertThat(r.groupsUnbalanced()).isEmpty();
    assertThat(r.ok()).isFalse();
  }

  @Test
  void moneyCreatedOrDestroyedIsCaught() {
    LedgerCheck.Result r = LedgerCheck.check(bank, rows(new long[] {70, 130, 101}, first), List.of(first));
    assertThat(r.groupsUnbalanced()).hasSize(1);
    assertThat(r.ok()).isFalse();
  }

  /** The bank's rows with these balances and ledger entries for these transfers (on their source rows). */
  private Map<String, Result> rows(long[] balances, Bank.Transfer... ledger) {
    Map<String, Result> rows = new HashMap<>();
    for (int a = 0; a < balances.length; a++) {
      byte[] row = bank.row(0, a);
      List<Cell> cells = new ArrayList<>();
      cells.add(CellUtil.createCell(row, Bank.CF, Bank.BALANCE, 1, (byte) 4, Bytes.toBytes(balances[a])));
      for (Bank.Transfer t : ledger) {
        if (Bytes.equals(t.from(), row)) {
          cells.add(CellUtil.createCell(row, Bank.CF, Bytes.toBytes(Bank.LEDGER_PREFIX + t.id()), 1, (byte) 4,
              t.ledgerEntry()));
        }
      }
      cells.sort(org.apache.hadoop.hbase.CellComparator.getInstance());
      rows.put(Bytes.toStringBinary(row), Result.create(cells));
    }
    return rows;
  }
}
