package org.gstore.example;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;

/**
 * The first program of {@code docs/client.md}: two players of a game trade coins. Their rows form a group for the
 * match, the trade is a serializable transaction over the group, and deleting the group hands the rows back to
 * plain HBase with every commit applied. Run it against a cluster that runs G-Store, with its {@code
 * hbase-site.xml} on the classpath.
 */
public final class FirstProgram {
  static final TableName PLAYERS = TableName.valueOf("players");
  static final byte[] CF = Bytes.toBytes("p");
  static final byte[] COINS = Bytes.toBytes("coins");

  private FirstProgram() {}

  public static void main(String[] args) throws IOException {
    Configuration conf = HBaseConfiguration.create(); // hbase-site.xml on the classpath says where the cluster is
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      createTableIfMissing(connection);
      long[] coins = trade(connection, "alice", "bob", 30);
      System.out.printf("alice has %d coins, bob has %d%n", coins[0], coins[1]);
    }
  }

  /**
   * A table G-Store serves: its descriptor names G-Store's region coprocessor. Not needed where G-Store is installed
   * cluster-wide ({@code hbase.coprocessor.user.region.classes}): there every user table is served.
   */
  static void createTableIfMissing(Connection connection) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      if (!admin.tableExists(PLAYERS)) {
        admin.createTable(TableDescriptorBuilder.newBuilder(PLAYERS)
            .setCoprocessor("org.gstore.coprocessor.GStoreRegionCoprocessor")
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build());
      }
    }
  }

  /**
   * Gives both players 100 coins, then moves {@code amount} from one to the other in a transaction; returns both
   * balances as plain HBase reads them afterwards. Throws {@link IllegalStateException}, and changes nothing, if the
   * giver has too few coins.
   */
  static long[] trade(Connection connection, String from, String to, long amount) throws IOException {
    try (Table table = connection.getTable(PLAYERS); GStoreClient gstore = GStoreClient.create(connection)) {
      table.put(List.of(coins(from, 100), coins(to, 100))); // plain HBase writes: the rows are in no group yet
      KeyGroup match = gstore.createGroup(GroupSpec.builder().id("match-" + from + "-" + to)
          .leader(PLAYERS, row(from)).member(PLAYERS, row(to)).build());
      try {
        match.transact(txn -> { // run again by transact if another transaction changed a row it read
          long giver = coinsOf(txn.get(PLAYERS, new Get(row(from))));
          long taker = coinsOf(txn.get(PLAYERS, new Get(row(to))));
          if (giver < amount) {
            throw new IllegalStateException(from + " has only " + giver + " coins"); // nothing is committed
          }
          txn.put(PLAYERS, coins(from, giver - amount));
          txn.put(PLAYERS, coins(to, taker + amount));
          return null; // commit() runs when the body returns
        });
      } finally {
        match.delete(); // returns once every commit is in HBase and the rows are released
      }
      return new long[] {coinsOf(table.get(new Get(row(from)))), coinsOf(table.get(new Get(row(to))))};
    }
  }

  private static byte[] row(String player) {
    return Bytes.toBytes(player);
  }

  private static Put coins(String player, long coins) {
    return new Put(row(player)).addColumn(CF, COINS, Bytes.toBytes(coins));
  }

  private static long coinsOf(Result row) {
    return Bytes.toLong(row.getValue(CF, COINS));
  }
}
