package org.gstore.recovery;

import java.util.Map;
import java.util.Set;

/**
 * The identity of one G-Store instance's log: {@code <server>#<instance>}. G-Store stops on a live region server
 * when its last G-Store region closes and starts again when one opens (a move, a balancer run, disable and
 * enable), under the same server name; its shipper then numbers shipments from 0 again. Claims made for the
 * earlier instance's shipments must not cover the new one's, and its WAL must not be mistaken for the new one's, so
 * both the thresholds and the WAL directory are keyed by this id, not by the server name.
 */
public final class LogId {
  private static final char SEPARATOR = '#';

  private LogId() {}

  public static String of(String server, long instance) {
    return server + SEPARATOR + instance;
  }

  /**
   * The instance for a new log of {@code server} started at {@code now}: above every instance in {@code earlier}
   * (its WAL directories, and the instant it last published as stopped), whatever the wall clock did. A clock that
   * stepped back below the published stop instant would otherwise name a live log that other servers take for an
   * earlier instance's, and fence it.
   */
  public static long nextInstance(String server, long now, Iterable<String> earlier) {
    long next = now;
    for (String log : earlier) {
      if (serverOf(log).equals(server)) {
        next = Math.max(next, instanceOf(log) + 1);
      }
    }
    return next;
  }

  /** The instance of a log: when its G-Store started, in milliseconds; -1 for a log named by its server alone. */
  public static long instanceOf(String log) {
    int at = log.lastIndexOf(SEPARATOR);
    try {
      return at < 0 ? -1 : Long.parseLong(log.substring(at + 1));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Whether {@code log} may still be written, so that no other instance may replay it: a log of a live server,
   * unless it is older than the log that server last published as current (an earlier instance's: G-Store stopped
   * there and started again, or stopped for good and published a later instant). A log as new as the published one
   * may belong to an instance that is starting. A server replays its own earlier logs in any case.
   *
   * @param selfServer the server asking
   * @param current every server's current log, as published with its T_F
   */
  public static boolean mayStillBeWritten(String log, String selfServer, Set<String> live,
      Map<String, ClaimStore.Flushed> current) {
    String server = serverOf(log);
    if (!live.contains(server) || server.equals(selfServer)) {
      return false;
    }
    ClaimStore.Flushed published = current.get(server);
    long newest = published == null ? -1 : instanceOf(published.log());
    return newest < 0 || instanceOf(log) >= newest;
  }

  /** The region server a log (or a WAL directory named after it) belongs to; a name without instance is its own. */
  public static String serverOf(String log) {
    int at = log.lastIndexOf(SEPARATOR);
    return at < 0 ? log : log.substring(0, at);
  }
}
