package org.gstore.testing;

import java.io.IOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.KeyGroup;

/** Bank-account rows for transaction tests: one balance column, a long. */
final class Accounts {
  static final byte[] CF = Bytes.toBytes("a");
  static final byte[] BALANCE = Bytes.toBytes("balance");

  private Accounts() {}

  /** The balance in {@code r}; 0 for a row that has none. */
  static long balance(Result r) {
    byte[] v = r.getValue(CF, BALANCE);
    return v == null ? 0 : Bytes.toLong(v);
  }

  /** A write setting {@code row}'s balance to {@code value}. */
  static Put balance(byte[] row, long value) {
    return new Put(row).addColumn(CF, BALANCE, Bytes.toBytes(value));
  }

  /** Moves {@code amount} from one account of the group to another (two different rows), in one transaction. */
  static void transfer(KeyGroup group, TableName table, byte[] from, byte[] to, long amount) throws IOException {
    group.transact(txn -> {
      long fromBalance = balance(txn.get(table, new Get(from)));
      long toBalance = balance(txn.get(table, new Get(to)));
      txn.put(table, balance(from, fromBalance - amount));
      txn.put(table, balance(to, toBalance + amount));
      return null;
    });
  }
}
