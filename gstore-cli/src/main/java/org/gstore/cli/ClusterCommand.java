package org.gstore.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.gstore.testing.process.ClusterLayout;
import org.gstore.testing.process.ProcessCluster;
import org.gstore.testing.process.ServerOperations;

/**
 * {@code gstore cluster ...}: a real G-Store cluster of separate processes on this machine (ZooKeeper, HDFS
 * NameNode and DataNode, HMaster, region servers with G-Store installed as docs/operations.md says), run from the
 * distribution this command line itself runs from.
 */
final class ClusterCommand {
  static final String USAGE = """
      usage: gstore cluster start   [--dir target/cluster] [--region-servers 3] [--base-port 21000]
                                   [--set key=value,...] [--secure]
                 --secure: a KDC first, then Kerberos for HDFS, ZooKeeper (SASL) and HBase, the AccessController,
                 encrypted RPC and datagrams; clients log in from the keytab the client hbase-site.xml names
             gstore cluster status  [--dir target/cluster]
             gstore cluster kill    (--rs N | --role zookeeper|namenode|datanode|master) [--signal 9] [--dir ...]
             gstore cluster restart (--rs N | --role ...) [--dir target/cluster]
             gstore cluster stop    [--dir target/cluster]
             gstore cluster rolling-restart [--dir target/cluster]
                 each region server in turn: its regions moved away (HBase's RegionMover), stopped, started,
                 its regions moved back (as graceful_stop.sh --restart --reload); groups keep committing
             gstore cluster decommission --rs N [--dir ...]
                 the master moves rsN's regions away and assigns it none, then it stops ('restart --rs N' and
                 'recommission --rs N' bring it back)
             gstore cluster recommission --rs N [--dir ...]
             gstore cluster add-rs    [--dir ...]   a new region server; the balancer moves regions onto it
             gstore cluster remove-rs [--dir ...]   the last region server decommissioned and dropped
             gstore cluster command (--rs N | --role ...) [--dir ...] [--region-servers 3] [--base-port 21000] [--set ...]
                 writes that role's configuration and prints the command that runs it in the foreground, one
                 argument per line (what a container's entry point runs)
      'start' returns once the cluster serves and prints the hbase-site.xml for clients
      (then: gstore demo --conf target/cluster/hbase-site.xml).""";

  private ClusterCommand() {}

  /** {@code argv[0]} is the subcommand. Returns the exit code. */
  static int run(String[] argv, PrintStream out) throws IOException {
    if (argv.length == 0 || argv[0].equals("help") || argv[0].equals("--help")) {
      out.println(USAGE);
      return argv.length == 0 ? 2 : 0;
    }
    Map<String, String> o = CommandLine.options(argv);
    Path dir = Path.of(o.getOrDefault("--dir", "target/cluster"));
    try {
      switch (argv[0]) {
        case "start" -> {
          CommandLine.allow(o, "--dir", "--region-servers", "--base-port", "--set", "--secure");
          ClusterLayout layout = new ClusterLayout(dir, home(), CommandLine.positive(o, "--region-servers", 3),
              CommandLine.positive(o, "--base-port", 21_000), CommandLine.settings(o), o.containsKey("--secure"));
          ProcessCluster cluster = ProcessCluster.create(layout, out);
          cluster.start();
          out.println("hbase-site.xml for clients: " + layout.clientSite());
          cluster.kerberosInstructions().ifPresent(out::println);
        }
        case "stop" -> {
          CommandLine.allow(o, "--dir");
          ProcessCluster.open(dir, out).stop();
        }
        case "status" -> {
          CommandLine.allow(o, "--dir");
          printStatus(ProcessCluster.open(dir, out), out);
        }
        case "kill" -> {
          CommandLine.allow(o, "--dir", "--rs", "--role", "--signal");
          String role = role(o);
          int signal = CommandLine.positive(o, "--signal", 9);
          boolean sent = ProcessCluster.open(dir, out).kill(role, signal);
          out.println(sent ? "sent signal " + signal + " to " + role : role + " was not running");
        }
        case "restart" -> {
          CommandLine.allow(o, "--dir", "--rs", "--role");
          ProcessCluster.open(dir, out).restart(role(o));
          out.println("restarted " + role(o));
        }
        case "rolling-restart" -> {
          CommandLine.allow(o, "--dir");
          new ServerOperations(ProcessCluster.open(dir, out), out).rollingRestart();
        }
        case "decommission" -> {
          CommandLine.allow(o, "--dir", "--rs");
          new ServerOperations(ProcessCluster.open(dir, out), out).decommission(regionServer(o));
        }
        case "recommission" -> {
          CommandLine.allow(o, "--dir", "--rs");
          new ServerOperations(ProcessCluster.open(dir, out), out).recommission(regionServer(o));
        }
        case "add-rs" -> {
          CommandLine.allow(o, "--dir");
          new ServerOperations(ProcessCluster.open(dir, out), out).addRegionServer();
        }
        case "remove-rs" -> {
          CommandLine.allow(o, "--dir");
          out.println("removed " + new ServerOperations(ProcessCluster.open(dir, out), out).removeLastRegionServer());
        }
        case "command" -> {
          CommandLine.allow(o, "--dir", "--rs", "--role", "--region-servers", "--base-port", "--set");
          ClusterLayout layout = new ClusterLayout(dir, home(), CommandLine.positive(o, "--region-servers", 3),
              CommandLine.positive(o, "--base-port", 21_000), CommandLine.settings(o));
          ProcessCluster.create(layout, System.err).foregroundCommand(role(o)).forEach(out::println);
        }
        default -> throw CommandLine.fail("unknown cluster command '" + argv[0] + "'\n" + USAGE);
      }
    } catch (IllegalArgumentException e) {
      throw CommandLine.fail(e.getMessage());
    }
    return 0;
  }

  private static String role(Map<String, String> o) {
    if (o.containsKey("--rs") == o.containsKey("--role")) {
      throw CommandLine.fail("name one process: --rs N or --role zookeeper|namenode|datanode|master");
    }
    return o.containsKey("--rs") ? ClusterLayout.regionServer(CommandLine.positive(o, "--rs", 1)) : o.get("--role");
  }

  private static String regionServer(Map<String, String> o) {
    if (!o.containsKey("--rs")) {
      throw CommandLine.fail("name the region server: --rs N");
    }
    return ClusterLayout.regionServer(CommandLine.positive(o, "--rs", 1));
  }

  /** The distribution this JVM runs from: {@code bin/gstore} sets {@code gstore.home}. */
  private static Path home() {
    String home = System.getProperty("gstore.home");
    if (home == null || !Files.isDirectory(Path.of(home, "lib", "coprocessor"))) {
      throw CommandLine.fail("no G-Store distribution (gstore.home is " + home + "); run this through ./gstore");
    }
    return Path.of(home);
  }

  private static void printStatus(ProcessCluster cluster, PrintStream out) {
    out.printf("%-10s %-8s %-6s %-9s %s%n", "role", "pid", "alive", "rss MiB", "ports");
    for (ProcessCluster.RoleStatus s : cluster.status()) {
      out.printf("%-10s %-8s %-6s %-9s %s%n", s.role(), s.alive() ? Long.toString(s.pid()) : "-",
          s.alive() ? "yes" : "no", s.alive() ? Long.toString(s.rssKib() / 1024) : "-", s.ports());
    }
    out.println("clients: " + cluster.clientSite());
  }
}
