package org.gstore.chaos;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.gstore.testing.process.ClusterLayout;
import org.gstore.testing.process.ProcessCluster;

/**
 * What a supervisor (systemd, Kubernetes) does for a chaos run: restarts a region server that is down though no
 * fault holds it down, as one whose ZooKeeper session expired while the machine was starved aborts. The run says
 * so, with the reason the server's log gives, and goes on rather than waiting for a server nobody restarts.
 */
final class Supervisor {
  private final ProcessCluster cluster;
  private final PrintStream out;

  Supervisor(ProcessCluster cluster, PrintStream out) {
    this.cluster = cluster;
    this.out = out;
  }

  /** Restarts every region server that is down; call when every fault injected has ended. Returns how many. */
  int reviveUnplanned() throws IOException {
    int revived = 0;
    for (ProcessCluster.RoleStatus role : cluster.status()) {
      if (ClusterLayout.isRegionServer(role.role()) && !role.alive()) {
        out.printf("chaos: %s died with no fault injected (%s); restarting it, as a supervisor would%n", role.role(),
            abortReason(role.log()));
        cluster.restart(role.role());
        revived++;
      }
    }
    return revived;
  }

  /** The last abort line of a region server's log, or a pointer to the log. */
  private static String abortReason(Path log) {
    try (Stream<String> lines = Files.lines(log)) {
      return lines.filter(l -> l.contains("ABORTING region server")).reduce((a, b) -> b)
          .map(l -> l.substring(l.indexOf("ABORTING"))).orElse("no abort in " + log);
    } catch (IOException | UncheckedIOException e) {
      return "see " + log;
    }
  }
}
