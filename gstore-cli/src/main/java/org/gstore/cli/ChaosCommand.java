package org.gstore.cli;

import static org.gstore.cli.CommandLine.allow;
import static org.gstore.cli.CommandLine.duration;
import static org.gstore.cli.CommandLine.fail;
import static org.gstore.cli.CommandLine.positive;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.gstore.chaos.BankChaos;
import org.gstore.chaos.Fault;
import org.gstore.chaos.Workload;
import org.gstore.testing.process.ProcessCluster;

/**
 * {@code gstore chaos}: the bank and the list-append workloads against a process cluster while faults hit it (it
 * needs the cluster's processes, to kill them). Parses the options; {@link BankChaos} runs the rest. True when
 * nothing was lost or applied twice and the history has no anomaly.
 */
final class ChaosCommand {
  private ChaosCommand() {}

  static boolean run(Map<String, String> o) throws Exception {
    allow(o, "--conf", "--dir", "--minutes", "--every", "--faults", "--min-faults", "--down", "--pause", "--groups",
        "--accounts", "--workers", "--seed", "--workload");
    Set<Workload> workloads;
    try {
      workloads = Workload.parse(o.getOrDefault("--workload", "both"));
    } catch (IllegalArgumentException e) {
      throw fail("--workload: " + e.getMessage());
    }
    Path dir = Path.of(o.getOrDefault("--dir", "target/cluster"));
    ProcessCluster cluster = ProcessCluster.open(dir, System.out);
    String conf = o.getOrDefault("--conf", cluster.clientSite().toString());
    double minutes = Double.parseDouble(o.getOrDefault("--minutes", "5"));
    if (!(minutes > 0 && minutes <= 24 * 60)) {
      throw fail("--minutes must be more than 0 and at most a day");
    }
    Set<Fault> faults;
    try {
      faults = Fault.parse(o.getOrDefault("--faults", "all"));
    } catch (IllegalArgumentException e) {
      throw fail("--faults: " + e.getMessage());
    }
    int accounts = positive(o, "--accounts", 8);
    if (accounts < 2) {
      throw fail("--accounts must be at least 2");
    }
    BankChaos.Settings settings = new BankChaos.Settings(Duration.ofMillis((long) (minutes * 60_000)),
        duration(o, "--every", "30s"), duration(o, "--down", "5s"), duration(o, "--pause", "15s"), faults,
        positive(o, "--min-faults", faults.size()), positive(o, "--groups", 4), accounts,
        positive(o, "--workers", 4),
        Long.parseLong(o.getOrDefault("--seed", Long.toString(System.nanoTime() % 1_000_000))), workloads);
    return GStore.withCluster(conf, Map.of(),
        (connection, embedded) -> new BankChaos(connection, cluster, settings, System.out).run().ok());
  }

}
