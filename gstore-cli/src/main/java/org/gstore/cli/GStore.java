package org.gstore.cli;

import static org.gstore.cli.CommandLine.allow;
import static org.gstore.cli.CommandLine.duration;
import static org.gstore.cli.CommandLine.fail;
import static org.gstore.cli.CommandLine.nonNegative;
import static org.gstore.cli.CommandLine.options;
import static org.gstore.cli.CommandLine.positive;
import static org.gstore.cli.CommandLine.positives;
import static org.gstore.cli.CommandLine.settings;

import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.util.VersionInfo;
import org.gstore.bench.BenchSystem;
import org.gstore.bench.Benchmark;
import org.gstore.bench.Reports;
import org.gstore.bench.ScaleRun;
import org.gstore.bench.omid.OmidSettings;
import org.gstore.cli.top.StderrCapture;
import org.gstore.cli.CommandLine.UsageException;
import org.gstore.cli.top.TopCommand;
import org.gstore.client.GStoreAdmin;
import org.gstore.client.GStoreClient;
import org.gstore.common.GStoreVersion;
import org.gstore.testing.GStoreMiniCluster;

/**
 * The {@code gstore} command line: the casino demo, benchmarks, the process cluster and its chaos run, and the
 * status of a running cluster. {@link #USAGE} is its one usage text ({@code gstore help} prints it).
 *
 * <p>Without {@code --conf} a command starts an embedded cluster (HDFS, ZooKeeper, HBase with G-Store, 3 region
 * servers), configured with {@code --set} (for example {@code --set gstore.shipper.durability=SYNC_WAL}).
 */
public final class GStore {
  static final String USAGE = """
      usage: gstore demo  [--conf hbase-site.xml | --set key=value,...]
                          [--players N] [--games N] [--dealers N] [--seats N] [--bets N]
             gstore bench [--conf hbase-site.xml | --set key=value,...] [--quick] [--clients 1,2,4]
                          [--workloads gaming,group-create,ycsb-a,ycsb-b,ycsb-f] [--k 50] [--n 20|10,20,50,100]
                          [--delta-ms 10] [--rows N] [--keys random|contiguous] [--distribution zipfian|uniform]
                          [--shared-groups 8] [--txn-size 4] [--seconds S] [--warmup S] [--out target/bench]
                          [--systems gstore,hbase,omid] [--ops-keys 1] [--warmup-round S] [--warmup-cap S]
                          [--repeat R] [--profile FILE.jfr]
                          [--omid wait=low-cpu|high-throughput,low-latency=yes|no,batch-ms=N,post-commit=async|sync]
             gstore scale [--conf hbase-site.xml | --set key=value,...] [--groups 10000] [--k 10] [--clients 16]
                          [--large-groups 3] [--large-k 1000] [--tombstone-wait 2m]
                          (many groups active at once, state-table cleanup, very large groups)
             gstore status --conf hbase-site.xml    (region servers, thresholds, WALs, recoveries, alerts)
             gstore top [--dir target/cluster | --conf hbase-site.xml] [--once]
                          (a live view: servers' commits/s, latencies, WAL syncs, shipper backlog, T_F/T_P,
                           alerts, and the busiest groups; keys q s r / c; --once prints one frame)
             gstore groups list|show ID|delete ID --conf hbase-site.xml
                          (groups: state, members, age, lease and who renews it, unshipped commits; delete one
                           an application left behind, as KeyGroup.delete() would)
             gstore version                         (this release, and the HBase client it was built with)
             gstore cluster start|stop|status|kill|restart|rolling-restart|decommission|recommission|add-rs|remove-rs
                          [--dir target/cluster] ...   (gstore cluster help)
             gstore chaos [--dir target/cluster] [--conf hbase-site.xml] [--minutes 5] [--every 30s]
                          [--faults kill,pause,move,balance,split,restart,master,partition,skew,
                                    rolling-restart,decommission,add-rs|all]
                          [--min-faults N]
                          [--down 5s] [--pause 15s] [--groups 4] [--accounts 8] [--workers 4] [--seed N]
                          [--workload bank|append|both]
                          (bank transfers, and groups forming and dissolving over list-append keys, while faults
                           hit the process cluster, several at once now and then; checks nothing is lost or
                           applied twice, and the list-append history for anomalies)
             gstore profile FILE.jfr [--top 25]
                          (a flight recording's CPU samples by the innermost G-Store method on the stack,
                           and by thread where none is: see docs/benchmarks.md)
             gstore check-history FILE [--consistency serializable|strict-serializable]
                          (a list-append history, one JSON operation a line: G0, G1a, G1b, G1c, G-single, G2,
                           lost and duplicated appends; exit 0 none, 1 anomalies, 2 unreadable)""";

  interface Job {
    boolean run(Connection connection, boolean embedded) throws Exception;
  }

  private GStore() {}

  public static void main(String[] argv) throws Exception {
    System.exit(run(argv));
  }

  /** Runs a command; returns the exit code: 0 done, 1 a check failed (money, audits), 2 bad usage. */
  public static int run(String[] argv) throws Exception {
    try {
      if (argv.length == 0 || argv[0].equals("help") || argv[0].equals("--help")) {
        System.out.println(USAGE);
        return 0;
      }
      if (argv[0].equals("version") || argv[0].equals("--version")) {
        System.out.println("G-Store " + GStoreVersion.current() + " (HBase client " + VersionInfo.getVersion() + ")");
        return 0;
      }
      if (argv[0].equals("chaos")) {
        return ChaosCommand.run(options(argv)) ? 0 : 1;
      }
      if (argv[0].equals("check-history")) {
        return CheckHistoryCommand.run(java.util.Arrays.copyOfRange(argv, 1, argv.length), System.out, System.err);
      }
      if (argv[0].equals("profile")) {
        return ProfileCommand.run(argv);
      }
      if (argv[0].equals("groups")) {
        return groups(argv) ? 0 : 1;
      }
      if (argv[0].equals("top")) {
        return top(options(argv)) ? 0 : 1;
      }
      if (argv[0].equals("cluster")) {
        return ClusterCommand.run(java.util.Arrays.copyOfRange(argv, 1, argv.length), System.out);
      }
      Map<String, String> options = options(argv);
      Job job = switch (argv[0]) {
        case "demo" -> demo(options);
        case "bench" -> bench(options);
        case "status" -> status(options);
        case "scale" -> scale(options);
        default -> throw fail("unknown command '" + argv[0] + "'\n" + USAGE);
      };
      Map<String, String> settings = settings(options);
      if (argv[0].equals("scale")) {
        settings.putIfAbsent("gstore.group.tombstone.retention.ms", "30000"); // to see the tables cleaned up
      }
      return withCluster(options.get("--conf"), settings, job) ? 0 : 1;
    } catch (UsageException e) {
      System.err.println("gstore: " + e.getMessage());
      return 2;
    }
  }

  private static Job scale(Map<String, String> o) {
    allow(o, "--conf", "--set", "--groups", "--k", "--clients", "--large-groups", "--large-k", "--tombstone-wait");
    ScaleRun.Settings settings = new ScaleRun.Settings(positive(o, "--groups", 10_000), positive(o, "--k", 10),
        positive(o, "--clients", 16), positive(o, "--large-groups", 3), positive(o, "--large-k", 1_000),
        duration(o, "--tombstone-wait", "2m").toMillis());
    return (connection, embedded) -> {
      ScaleRun.Outcome r = new ScaleRun(connection, settings, System.out,
          embedded ? () -> ServerMetrics.counter("datagramsSent") : null, embedded).run();
      return r.end()[0] <= r.before()[0] && r.end()[1] <= r.before()[1]; // exit 1 if the tables kept rows
    };
  }

  private static Job status(Map<String, String> o) {
    allow(o, "--conf");
    if (!o.containsKey("--conf")) { // a fresh embedded cluster would always look healthy: no go/no-go check
      throw fail("gstore status needs --conf hbase-site.xml (the cluster to inspect)");
    }
    return (connection, embedded) -> {
      try (GStoreClient client = GStoreClient.create(connection); GStoreAdmin admin = client.admin()) {
        System.out.print(StatusReport.render(admin.recoveryStatus()));
        return true;
      } catch (java.io.IOException e) {
        System.err.println("gstore: " + e.getMessage());
        return false;
      }
    };
  }

  /**
   * {@code gstore top [--dir D | --conf F] [--once]}: against a running cluster only; the live view holds standard
   * error from before the first log line until it ends, so warnings do not scribble over the screen.
   */
  private static boolean top(Map<String, String> o) throws Exception {
    allow(o, "--conf", "--dir", "--once");
    if (o.containsKey("--conf") && o.containsKey("--dir")) {
      throw fail("gstore top takes --conf or --dir, not both");
    }
    String conf = o.containsKey("--conf") ? o.get("--conf")
        : Path.of(o.getOrDefault("--dir", "target/cluster"), "hbase-site.xml").toString();
    if (!new File(conf).isFile()) {
      throw fail("no such file: " + conf + " (gstore top needs a running cluster: --conf its hbase-site.xml, or"
          + " --dir the process cluster's directory)");
    }
    if (o.containsKey("--once")) {
      return withCluster(conf, TopCommand.CLIENT_SETTINGS,
          (connection, embedded) -> TopCommand.once(connection, System.out, 220));
    }
    try (StderrCapture held = TopCommand.holdStderr()) {
      return withCluster(conf, TopCommand.CLIENT_SETTINGS, (connection, embedded) -> TopCommand.live(connection, held));
    } catch (java.io.IOException e) {
      System.err.println("gstore: " + e.getMessage());
      return false;
    }
  }

  /** {@code gstore groups list|show ID|delete ID --conf F}: against a running cluster only. */
  private static boolean groups(String[] argv) throws Exception {
    if (argv.length < 2 || !Set.of("list", "show", "delete").contains(argv[1])) {
      throw fail("usage: gstore groups list|show ID|delete ID --conf hbase-site.xml");
    }
    String subcommand = argv[1];
    boolean needsId = !subcommand.equals("list");
    if (needsId && (argv.length < 3 || argv[2].startsWith("--"))) {
      throw fail("gstore groups " + subcommand + " needs a group id (as gstore groups list prints it)");
    }
    String id = needsId ? argv[2] : null;
    if (needsId) {
      try {
        org.gstore.client.GroupId.of(id);
      } catch (IllegalArgumentException e) {
        throw fail(e.getMessage());
      }
    }
    String[] flags = new String[argv.length - (needsId ? 2 : 1)];
    flags[0] = "groups";
    System.arraycopy(argv, needsId ? 3 : 2, flags, 1, flags.length - 1);
    Map<String, String> o = options(flags);
    allow(o, "--conf");
    if (!o.containsKey("--conf")) {
      throw fail("gstore groups needs --conf hbase-site.xml (the cluster to ask)");
    }
    return withCluster(o.get("--conf"), Map.of(), (connection, embedded) -> {
      try {
        return GroupsCommand.run(connection, subcommand, id, System.out);
      } catch (java.io.IOException e) { // no such group, a leader that does not answer: said plainly, exit 1
        System.err.println("gstore: " + e.getMessage());
        return false;
      }
    });
  }

  private static Job demo(Map<String, String> o) {
    allow(o, "--conf", "--set", "--players", "--games", "--dealers", "--seats", "--bets");
    int players = positive(o, "--players", 2_000);
    int seats = positive(o, "--seats", 8);
    if (seats < 2 || seats > players) {
      throw fail("--seats must be between 2 and --players");
    }
    int games = positive(o, "--games", 60);
    int dealers = positive(o, "--dealers", 8);
    int bets = positive(o, "--bets", 40);
    return (connection, embedded) -> new CasinoDemo(connection,
        new CasinoDemo.Settings(players, games, dealers, seats, bets, 1_000, 42, embedded), System.out).run();
  }

  private static Job bench(Map<String, String> o) {
    allow(o, "--conf", "--set", "--quick", "--clients", "--workloads", "--k", "--n", "--delta-ms", "--rows", "--keys",
        "--distribution", "--shared-groups", "--txn-size", "--seconds", "--warmup", "--out", "--systems", "--omid",
        "--ops-keys", "--warmup-round", "--warmup-cap", "--repeat", "--profile");
    if (o.containsKey("--profile") && o.containsKey("--conf")) {
      throw fail("--profile records this JVM: it profiles the embedded cluster, not one given by --conf");
    }
    boolean quick = o.containsKey("--quick");
    List<Integer> clients = positives(o, "--clients", quick ? "1,2,4" : "1,2,4,8,16");
    String keys = o.getOrDefault("--keys", "random");
    if (!keys.equals("random") && !keys.equals("contiguous")) {
      throw fail("--keys must be random or contiguous");
    }
    String distribution = o.getOrDefault("--distribution", "zipfian");
    if (!distribution.equals("zipfian") && !distribution.equals("uniform")) {
      throw fail("--distribution must be zipfian or uniform");
    }
    int k = positive(o, "--k", 50);
    String workloads = quick ? "gaming,group-create,ycsb-a" : "gaming,group-create,ycsb-a,ycsb-b,ycsb-f";
    Benchmark.Settings settings = new Benchmark.Settings(clients,
        List.of(o.getOrDefault("--workloads", workloads).split(",")), k, positives(o, "--n", "20"),
        Long.parseLong(o.getOrDefault("--delta-ms", "10")), positive(o, "--rows", 20_000),
        keys.equals("contiguous"), 1_000L * positive(o, "--warmup", quick ? 2 : 10),
        1_000L * positive(o, "--seconds", quick ? 6 : 60), positive(o, "--shared-groups", 8),
        positive(o, "--txn-size", 4), distribution.equals("zipfian"), systems(o), omid(o),
        positive(o, "--ops-keys", 1), 1_000L * nonNegative(o, "--warmup-round", quick ? 3 : 10),
        1_000L * nonNegative(o, "--warmup-cap", quick ? 30 : 600), positive(o, "--repeat", quick ? 1 : 3),
        o.containsKey("--profile") ? Path.of(o.get("--profile")) : null);
    Path out = Path.of(o.getOrDefault("--out", "target/bench"));
    return (connection, embedded) -> {
      Benchmark.Run run = new Benchmark(connection, settings, embedded, System.out).run();
      Reports.write(run, out);
      System.out.println("Results in " + out.toAbsolutePath() + " (summary.csv, summary.json, *.png)");
      return true;
    };
  }

  private static List<BenchSystem> systems(Map<String, String> o) {
    try {
      return Arrays.stream(o.getOrDefault("--systems", "gstore,hbase,omid").split(",")).map(BenchSystem::of)
          .distinct().toList();
    } catch (IllegalArgumentException e) {
      throw fail("--systems: " + e.getMessage());
    }
  }

  private static OmidSettings omid(Map<String, String> o) {
    try {
      return OmidSettings.parse(o.getOrDefault("--omid", ""));
    } catch (IllegalArgumentException e) {
      throw fail("--omid: " + e.getMessage());
    }
  }

  static boolean withCluster(String conf, Map<String, String> settings, Job job) throws Exception {
    if (conf != null) {
      if (!new File(conf).isFile()) {
        throw fail("no such file: " + conf);
      }
      Configuration c = HBaseConfiguration.create();
      c.addResource(new org.apache.hadoop.fs.Path(new File(conf).getAbsolutePath()));
      settings.forEach(c::set); // the client's own, over the cluster's file
      if ("kerberos".equalsIgnoreCase(c.get("hadoop.security.authentication"))) {
        // as Hadoop's core-site.xml would on the class path: HBase's client logs in only when Hadoop's security is on
        org.apache.hadoop.security.UserGroupInformation.setConfiguration(c);
      }
      System.out.println("Connecting to the cluster of " + conf);
      try (Connection connection = ConnectionFactory.createConnection(c)) {
        return job.run(connection, false);
      }
    }
    System.out.println("Starting an embedded cluster: HDFS, ZooKeeper, HBase with G-Store on 3 region servers...");
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(3, settings)) {
      return job.run(cluster.getConnection(), true);
    }
  }
}
