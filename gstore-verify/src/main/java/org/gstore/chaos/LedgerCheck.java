package org.gstore.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The end-of-run check, made with plain HBase {@code Get}s once the groups are deleted (so every commit is in
 * HBase). Three things must hold:
 * <ul>
 *   <li>money is conserved: each group's accounts hold {@code accounts × initial balance};
 *   <li>nothing acknowledged is lost: every transfer the client saw commit has its ledger entry;
 *   <li>nothing is applied twice: each account's balance is exactly its initial balance minus the transfers its
 *       ledger shows leaving it plus those the other ledgers show arriving. A transfer applied twice (or a balance
 *       write without its ledger entry) breaks this for its accounts.
 * </ul>
 */
final class LedgerCheck {
  private LedgerCheck() {}

  record Result(long lost, long accountsOff, List<String> groupsUnbalanced, long transfersApplied,
      List<String> details) {
    boolean ok() {
      return lost == 0 && accountsOff == 0 && groupsUnbalanced.isEmpty();
    }
  }

  static Result run(Connection connection, Bank bank, Collection<Bank.Transfer> acknowledged) throws IOException {
    return check(bank, read(connection, bank), acknowledged);
  }

  /** Every account row of the bank, by {@link Bytes#toStringBinary} of its key. */
  private static Map<String, org.apache.hadoop.hbase.client.Result> read(Connection connection, Bank bank)
      throws IOException {
    Map<String, org.apache.hadoop.hbase.client.Result> rows = new HashMap<>();
    try (Table table = connection.getTable(bank.table())) {
      for (int g = 0; g < bank.groups(); g++) {
        List<Get> gets = new ArrayList<>();
        for (byte[] row : bank.rows(g)) {
          gets.add(new Get(row).addFamily(Bank.CF));
        }
        org.apache.hadoop.hbase.client.Result[] results = table.get(gets);
        for (int i = 0; i < results.length; i++) {
          rows.put(Bytes.toStringBinary(gets.get(i).getRow()), results[i]);
        }
      }
    }
    return rows;
  }

  static Result check(Bank bank, Map<String, org.apache.hadoop.hbase.client.Result> rows,
      Collection<Bank.Transfer> acknowledged) {
    List<String> details = new ArrayList<>();
    // the ledger: every applied transfer, from the rows it left
    Map<String, Long> expected = new HashMap<>();
    rows.keySet().forEach(r -> expected.put(r, bank.initialBalance()));
    Set<String> ledgerIds = new HashSet<>();
    long applied = 0;
    for (Map.Entry<String, org.apache.hadoop.hbase.client.Result> e : rows.entrySet()) {
      for (Map.Entry<byte[], byte[]> cell : e.getValue().getFamilyMap(Bank.CF).entrySet()) {
        String qualifier = Bytes.toString(cell.getKey());
        if (!qualifier.startsWith(Bank.LEDGER_PREFIX)) {
          continue;
        }
        String[] entry = new String(cell.getValue(), StandardCharsets.UTF_8).split(",");
        long amount = Long.parseLong(entry[1]);
        expected.merge(e.getKey(), -amount, Long::sum);
        expected.merge(entry[0], amount, Long::sum);
        ledgerIds.add(qualifier.substring(Bank.LEDGER_PREFIX.length()));
        applied++;
      }
    }
    long off = 0;
    for (Map.Entry<String, org.apache.hadoop.hbase.client.Result> e : rows.entrySet()) {
      long balance = Bank.balance(e.getValue());
      if (balance != expected.get(e.getKey())) {
        off++;
        details.add("account " + e.getKey() + " holds " + balance + ", its ledgers say " + expected.get(e.getKey()));
      }
    }
    long lost = 0;
    for (Bank.Transfer t : acknowledged) {
      if (!ledgerIds.contains(t.id())) {
        lost++;
        details.add("acknowledged transfer " + t.id() + " (" + t.amount() + " from "
            + Bytes.toStringBinary(t.from()) + ") is not in the ledger");
      }
    }
    List<String> unbalanced = new ArrayList<>();
    for (int g = 0; g < bank.groups(); g++) {
      long total = 0;
      for (byte[] row : bank.rows(g)) {
        total += Bank.balance(rows.get(Bytes.toStringBinary(row)));
      }
      if (total != bank.accounts() * bank.initialBalance()) {
        unbalanced.add("group " + g + " holds " + total + ", not " + bank.accounts() * bank.initialBalance());
      }
    }
    details.addAll(unbalanced);
    return new Result(lost, off, unbalanced, applied, details);
  }
}
