package org.gstore.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.Transaction;

/**
 * The bank's rows: {@code groups} groups of {@code accounts} accounts each, in one table. An account row holds its
 * balance and one ledger column per transfer that left it ({@code t:<transfer id>} = {@code <to row>,<amount>}),
 * written in the same transaction as the two balances, so the ledger says exactly which transfers were applied.
 * Rows are spread so that each even group spans the table's four regions, with its leader in a region of its own,
 * and each odd group keeps to its leader's region: a fault on another server is unrelated to it, and should not
 * stall it.
 */
record Bank(TableName table, int groups, int accounts, long initialBalance) implements FaultTargets {
  static final byte[] CF = Bytes.toBytes("a");
  static final byte[] BALANCE = Bytes.toBytes("balance");
  static final String LEDGER_PREFIX = "t:";

  byte[] row(int group, int account) {
    int slot = group % 2 == 0 ? (account + 2 * group) % 8 : 2 * group % 8;
    return Bytes.toBytes(String.format("s%d-g%02d-a%02d", slot, group, account));
  }

  List<byte[]> rows(int group) {
    List<byte[]> rows = new ArrayList<>();
    for (int a = 0; a < accounts; a++) {
      rows.add(row(group, a));
    }
    return rows;
  }

  @Override
  public byte[] leaderRow(java.util.Random random) {
    return row(random.nextInt(groups), 0);
  }

  @Override
  public byte[] splitRow(java.util.Random random) {
    return row(random.nextInt(groups), 1 + random.nextInt(accounts - 1));
  }

  static byte[][] splits() {
    return new byte[][] {Bytes.toBytes("s2"), Bytes.toBytes("s4"), Bytes.toBytes("s6")};
  }

  static long balance(Result r) {
    byte[] v = r.getValue(CF, BALANCE);
    return v == null ? 0 : Bytes.toLong(v);
  }

  /** One transfer, inside {@code txn}: false (nothing written) if {@code from} lacks the funds. */
  boolean transfer(Transaction txn, Transfer t) throws IOException {
    long fromBalance = balance(txn.get(table, new Get(t.from())));
    long toBalance = balance(txn.get(table, new Get(t.to())));
    if (fromBalance < t.amount()) {
      return false;
    }
    txn.put(table, new Put(t.from()).addColumn(CF, BALANCE, Bytes.toBytes(fromBalance - t.amount()))
        .addColumn(CF, Bytes.toBytes(LEDGER_PREFIX + t.id()), t.ledgerEntry()));
    txn.put(table, new Put(t.to()).addColumn(CF, BALANCE, Bytes.toBytes(toBalance + t.amount())));
    return true;
  }

  /** A transfer of {@code amount} between two rows of one group, named by a unique id. */
  record Transfer(String id, byte[] from, byte[] to, long amount) {
    byte[] ledgerEntry() {
      return (Bytes.toStringBinary(to) + "," + amount).getBytes(StandardCharsets.UTF_8);
    }
  }
}
