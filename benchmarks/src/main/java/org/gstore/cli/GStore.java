package org.gstore.cli;

import java.io.File;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.gstore.testing.GStoreMiniCluster;

/**
 * The {@code gstore} command line.
 *
 * <pre>
 * gstore demo [--conf hbase-site.xml] [--players N] [--games N] [--dealers N] [--seats N] [--bets N]
 * </pre>
 *
 * Without {@code --conf} it starts an embedded cluster (HDFS, ZooKeeper, HBase with G-Store, 3 region servers).
 */
public final class GStore {
  private GStore() {}

  public static void main(String[] argv) throws Exception {
    Deque<String> args = new ArrayDeque<>(List.of(argv));
    String command = args.isEmpty() ? "help" : args.pop();
    if (!command.equals("demo")) {
      System.err.println("usage: gstore demo [--conf hbase-site.xml] [--players N] [--games N] [--dealers N]"
          + " [--seats N] [--bets N]");
      System.exit(command.equals("help") ? 0 : 2);
    }
    String conf = null;
    int players = 2_000;
    int games = 60;
    int dealers = 8;
    int seats = 8;
    int bets = 40;
    while (!args.isEmpty()) {
      String flag = args.pop();
      if (args.isEmpty()) {
        fail("missing value after " + flag);
      }
      String value = args.pop();
      switch (flag) {
        case "--conf" -> conf = value;
        case "--players" -> players = positive(flag, value);
        case "--games" -> games = positive(flag, value);
        case "--dealers" -> dealers = positive(flag, value);
        case "--seats" -> seats = positive(flag, value);
        case "--bets" -> bets = positive(flag, value);
        default -> fail("unknown option " + flag);
      }
    }
    if (seats < 2 || seats > players) {
      fail("--seats must be between 2 and --players");
    }
    CasinoDemo.Settings settings = new CasinoDemo.Settings(players, games, dealers, seats, bets, 1_000, 42,
        conf == null);
    boolean ok;
    if (conf != null) {
      if (!new File(conf).isFile()) {
        fail("no such file: " + conf);
      }
      Configuration c = HBaseConfiguration.create();
      c.addResource(new Path(new File(conf).getAbsolutePath()));
      System.out.println("Connecting to the cluster of " + conf);
      try (Connection connection = ConnectionFactory.createConnection(c)) {
        ok = new CasinoDemo(connection, settings, System.out).run();
      }
    } else {
      System.out.println("Starting an embedded cluster: HDFS, ZooKeeper, HBase with G-Store on 3 region servers...");
      try (GStoreMiniCluster cluster = GStoreMiniCluster.start(3)) {
        ok = new CasinoDemo(cluster.getConnection(), settings, System.out).run();
      }
    }
    System.exit(ok ? 0 : 1);
  }

  private static int positive(String flag, String value) {
    try {
      int n = Integer.parseInt(value);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    fail(flag + " must be a positive whole number, not '" + value + "'");
    return 0;
  }

  private static void fail(String message) {
    System.err.println("gstore: " + message);
    System.exit(2);
  }
}
