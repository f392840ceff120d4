package org.gstore.client;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The cluster's recovery state ({@link GStoreAdmin#recoveryStatus()}): every region server recovery knows of,
 * alive or dead, with its thresholds, its WAL and its alerts. See docs/recovery.md.
 *
 * <p>T_F and T_P are positions in each leader's own log, so there is no meaningful minimum across leaders (the
 * paper's T*_F and T*_P compare timestamps of one clock); what is comparable is how far each leader's persisted
 * threshold trails its flushed one, {@link Server#unpersisted()}, and {@link #mostBehind()} is the cluster's worst.
 */
public record RecoveryStatus(List<Server> servers) {
  /**
   * One region server.
   *
   * @param state alive, dead, or dead with its WAL waiting for, in, or done with its replay
   * @param shippedThrough T_F: the last shipment of its current log HBase acknowledged (-1: none)
   * @param persistedThrough T_P: the lowest claim of the live servers for it (-1: none)
   * @param alerts the alerts it published (SHIPPING_BLOCKED, PERSISTENCE_BLOCKED, COMMIT_QUARANTINED,
   *     HEARTBEAT_FAILING; docs/operations.md, "Alerts")
   */
  public record Server(String name, String state, long shippedThrough, long persistedThrough, int walFiles,
      long walBytes, Set<String> alerts) {
    /** Shipments acknowledged but not yet claimed persisted by every live server (T_F − T_P), or -1. */
    public long unpersisted() {
      return shippedThrough < 0 ? -1 : shippedThrough - Math.max(persistedThrough, 0);
    }
  }

  /** The live leader whose persisted threshold trails its flushed one the most, if any has shipped. */
  public Optional<Server> mostBehind() {
    return servers.stream().filter(s -> s.state().equals("alive") && s.unpersisted() >= 0)
        .max(Comparator.comparingLong(Server::unpersisted));
  }

  /** Every alert of every server, as {@code server: ALERT}. */
  public Set<String> alerts() {
    Set<String> all = new TreeSet<>();
    servers.forEach(s -> s.alerts().forEach(a -> all.add(s.name() + ": " + a)));
    return all;
  }
}
