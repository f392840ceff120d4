package org.gstore.cli;

import java.util.TreeSet;
import org.gstore.client.GStoreAdmin;
import org.gstore.client.RecoveryStatus;

/**
 * {@code gstore status}: the region servers as recovery sees them ({@link GStoreAdmin#recoveryStatus()}): alive or
 * dead, each leader's T_F and T_P (the lowest claim of the live registered servers for its log), its WAL files and
 * bytes, dead servers' WALs waiting for, in, or done with their replay, the leader whose T_P trails its T_F most,
 * and the alerts each live server published (docs/operations.md, "Alerts").
 */
final class StatusReport {
  private StatusReport() {}

  static String render(RecoveryStatus status) {
    StringBuilder out = new StringBuilder(String.format("%-44s %-26s %10s %10s %9s %12s%n", "region server",
        "state", "T_F", "T_P", "WAL files", "WAL bytes"));
    for (RecoveryStatus.Server s : status.servers()) {
      out.append(String.format("%-44s %-26s %10s %10s %9d %12d%n", s.name(), s.state(), position(s.shippedThrough()),
          position(s.persistedThrough()), s.walFiles(), s.walBytes()));
    }
    out.append("T_F: the server's last shipment HBase acknowledged; T_P: the lowest claim of the live servers for"
        + " it (-: none yet). See docs/recovery.md.\n");
    status.mostBehind().ifPresent(s -> out.append("Most behind: ").append(s.name()).append(", ")
        .append(s.unpersisted()).append(" shipments acknowledged but not yet claimed persisted by every live server"
        + " (T_F - T_P; positions of different logs do not compare, so this is the cluster-wide figure)\n"));
    for (RecoveryStatus.Server s : status.servers()) {
      if (!s.alerts().isEmpty()) {
        out.append("ALERT ").append(s.name()).append(": ").append(String.join(", ", new TreeSet<>(s.alerts())))
            .append(" (the server's log names the remedy; docs/operations.md, \"Alerts\")\n");
      }
    }
    return out.toString();
  }

  private static String position(long p) {
    return p < 0 ? "-" : Long.toString(p);
  }
}
