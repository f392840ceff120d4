package org.gstore.cli.top;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One refresh of {@code gstore top}: the region servers and the live groups as sampled at {@link #at}. Rates are
 * over the time since the previous frame (NaN in a first frame, which has nothing to compare with).
 *
 * @param problems what could not be read this time (a server's metrics, the groups), said on screen
 */
public record Frame(Instant at, List<Server> servers, List<Group> groups, List<String> problems) {

  /**
   * One region server: its G-Store metrics (NaN where its {@code /prometheus} could not be read) and its recovery
   * state.
   *
   * @param state alive, dead, or dead with its WAL waiting for, in, or done with its replay
   * @param shippedThrough T_F of its log (-1: none yet)
   * @param persistedThrough T_P of its log (-1: none yet)
   */
  public record Server(String name, String state, double groupsLed, double commitsPerSecond, double commitP50Millis,
      double commitP99Millis, double walSyncsPerSecond, double shipperBacklog, double shipperLagMillis,
      double unpersisted, long shippedThrough, long persistedThrough, long walBytes, List<String> alerts) {}

  /**
   * One live group, as its leader describes it.
   *
   * @param commits commits at its leader since that server loaded it (-1: unknown)
   * @param aborts transactions its leader aborted by validation since then (-1: unknown)
   * @param leaseLeft time until its lease lapses unless renewed, or null if it has none or none is known
   * @param unshipped commits its leader has not shipped to HBase yet (-1: unknown)
   */
  public record Group(String id, String leader, String state, int members, long commits, double commitsPerSecond,
      long aborts, Duration leaseLeft, long unshipped) {}
}
