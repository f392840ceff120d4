package org.gstore.chaos;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The kinds of fault a chaos run mixes, named as {@code --faults} takes them and the verdict line counts them. */
public enum Fault {
  /** {@code kill -9} of a region server, started again after the down time. */
  KILL("kills"),
  /** {@code SIGSTOP} of a region server for longer than its ZooKeeper session, then {@code SIGCONT}: HBase declared
   * it dead meanwhile, so it is a zombie until it notices and aborts; then started again. */
  PAUSE("pauses"),
  /** A region holding a group's leader row moved to another region server. */
  MOVE("moves"),
  /** A balancer run. */
  BALANCE("balances"),
  /** A region of the bank table split at a group's member row. */
  SPLIT("splits"),
  /** A graceful stop of a region server (its regions closed and flushed), then a start. */
  RESTART("restarts"),
  /** {@code kill -9} of the active master, started again after the down time. */
  MASTER("masters"),
  /** G-Store's datagrams between two region servers dropped for 5-30 s, one way or both. */
  PARTITION("partitions"),
  /** One region server's G-Store clock moved by up to the 30 s HBase tolerates, for 10-30 s, then back. */
  SKEW("skews"),
  /** One step of a rolling restart: a region server's regions moved away, the server stopped and started, its
   * regions moved back ({@code gstore cluster rolling-restart} does every server so). */
  ROLLING_RESTART("rolling-restarts"),
  /** A region server decommissioned (its regions moved away, none assigned to it) and stopped; after the down time,
   * started and recommissioned. */
  DECOMMISSION("decommissions"),
  /** A region server added (the balancer moves regions onto it), then after the down time decommissioned and
   * removed again: servers joining and leaving. */
  ADD_RS("added-servers");

  private final String counted;

  Fault(String counted) {
    this.counted = counted;
  }

  /** Whether this is an operator's planned operation rather than a failure. */
  public boolean operation() {
    return this == ROLLING_RESTART || this == DECOMMISSION || this == ADD_RS;
  }

  /** The word that counts this kind in the verdict line. */
  public String counted() {
    return counted;
  }

  /** The kind's name in {@code --faults} and the {@code stalls} lines: {@code kill}, {@code rolling-restart}. */
  public String option() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** {@code kill,pause,...}; every kind when {@code all}. */
  public static Set<Fault> parse(String list) {
    if (list.equals("all")) {
      return EnumSet.allOf(Fault.class);
    }
    Set<Fault> faults = EnumSet.noneOf(Fault.class);
    for (String name : list.split(",")) {
      try {
        faults.add(valueOf(name.trim().toUpperCase(Locale.ROOT).replace('-', '_')));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("unknown fault '" + name.trim() + "'; the kinds are "
            + String.join(",", EnumSet.allOf(Fault.class).stream().map(Fault::option)
                .toList()));
      }
    }
    if (faults.isEmpty()) {
      throw new IllegalArgumentException("name at least one fault");
    }
    return faults;
  }
}
