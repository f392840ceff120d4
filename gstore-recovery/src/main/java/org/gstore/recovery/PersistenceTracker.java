package org.gstore.recovery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A leader's view of T_P: for each region server, the position in each leader log through which everything that
 * log shipped to it is persisted in its own (HBase) WAL, as the server last published it. A server claims a
 * position only after syncing its WAL, and claims the T_F it read <em>before</em> that sync (Algorithm 3 of the
 * recovery-middleware paper), so a write it acknowledged below the claim was in its WAL before the sync.
 *
 * <p>What a log may forget (the shipper's copy of a shipped commit, a WAL file) is what every server that could
 * hold its writes has persisted: {@link #persistedThrough} is the minimum over the <em>known</em> servers. A
 * server registers (publishes an empty claim) before it takes any shipped write, and stays known from the first
 * heartbeat that sees its claim until it dies (then it is a suspect, below), or until it unregisters: a server
 * whose claim is gone stopped G-Store cleanly, every region it held closed with its memstore flushed, so it holds
 * nothing back, whether it still runs (a server that stops G-Store and keeps running must not pin every leader's
 * threshold) or has exited since (a graceful stop is no death: nothing to ship again, no zombie).
 * Live servers that never registered (they host no G-Store region, so take no shipped write) do not count.
 *
 * <p>Each heartbeat reports the servers that died since the last one ({@link Death}: their last claim, so that
 * the leader ships again every commit above it). A leader whose heartbeats stalled longer than a dead server's
 * claim is kept ({@code maxGapMillis}) may have missed a server that came and went: it is told to ship again
 * everything it has not seen persisted.
 *
 * <p><b>Zombies.</b> A server declared dead may still be running (a long pause: it resumes before it learns that
 * its ZooKeeper session expired) and acknowledge, from its memstore, writes it can never persist: an
 * {@code ASYNC_WAL} write needs no WAL sync to be acknowledged, so HBase's WAL fencing does not stop it. Such an
 * acknowledgement can reach the leader after it saw the death and shipped again what the server had not claimed,
 * for a batch sent before the death or one sent after it to the server's stale location. So a dead server stays a
 * <em>suspect</em> for {@code zombieWindowMillis} (longer than one RPC to it can take): its last claim still holds
 * back what may be forgotten, and when the window closes the heartbeat reports it again
 * ({@link Heartbeat#zombieWindowsClosed}) so that the leader ships again everything above that claim once more, and
 * takes no acknowledgement of a batch sent before then.
 */
public final class PersistenceTracker {
  /** A server that died: ship again each log's commits above {@code persisted} (absent: all of them). */
  public record Death(String server, Map<String, Long> persisted) {
    public long persistedThrough(String log) {
      return persisted.getOrDefault(log, -1L);
    }
  }

  /**
   * What a heartbeat found: servers that died, dead servers whose zombie window closed, and whether every
   * unpersisted commit must be shipped again.
   */
  public record Heartbeat(List<Death> deaths, List<Death> zombieWindowsClosed, boolean shipEverythingAgain) {}

  /** A dead server whose zombie may still acknowledge writes: its last claim, and when its death was seen. */
  private record Suspect(Death death, long seenAt) {}

  private final long maxGapMillis;
  private final long zombieWindowMillis;
  private final Map<String, Suspect> suspects = new HashMap<>();
  private final Set<String> known = new HashSet<>();
  private final Set<String> dead = new HashSet<>();
  private final Map<String, Map<String, Long>> claims = new HashMap<>();
  private long lastHeartbeat = Long.MIN_VALUE;

  /**
   * @param maxGapMillis how long a dead server's published claim is kept; heartbeats further apart are a stall
   * @param zombieWindowMillis how long a dead server may still acknowledge writes (see the class comment)
   */
  public PersistenceTracker(long maxGapMillis, long zombieWindowMillis) {
    this.maxGapMillis = maxGapMillis;
    this.zombieWindowMillis = zombieWindowMillis;
  }

  /**
   * A heartbeat: the servers alive now and every published claim (of live and dead servers), both read after the
   * commits this leader is about to forget were acknowledged. A known server that is not alive has died.
   */
  public Heartbeat heartbeat(Set<String> live, Map<String, Map<String, Long>> published, long now) {
    boolean stalled = lastHeartbeat != Long.MIN_VALUE && now - lastHeartbeat > maxGapMillis;
    lastHeartbeat = now;
    dead.retainAll(published.keySet()); // a dead server's claim goes once its WAL is long replayed: never back
    List<Death> deaths = new ArrayList<>();
    for (String server : published.keySet()) {
      if (!dead.contains(server)) {
        known.add(server);
      }
    }
    for (String server : known) {
      Map<String, Long> claim = published.get(server);
      if (claim != null) {
        claims.put(server, Map.copyOf(claim));
      }
    }
    for (String server : new ArrayList<>(known)) {
      if (!published.containsKey(server)) {
        // unregistered: it stopped G-Store cleanly, its regions flushed what it was shipped, whether or not the
        // region server has exited since (a dead server's claim stays published until long after its death was
        // seen: RecoveredLogs.forgetOld); counted a death, a graceful stop made every leader ship again all it
        // held for the server and hold its threshold back for a zombie window a stopped server cannot have
        forget(server);
      } else if (!live.contains(server) && dead.add(server)) {
        Death death = new Death(server, claims.getOrDefault(server, Map.of()));
        deaths.add(death);
        forget(server);
        suspects.put(server, new Suspect(death, now));
      }
    }
    List<Death> closed = new ArrayList<>();
    var it = suspects.values().iterator();
    while (it.hasNext()) {
      Suspect s = it.next();
      if (now - s.seenAt() >= zombieWindowMillis) {
        closed.add(s.death());
        it.remove();
      }
    }
    return new Heartbeat(deaths, closed, stalled);
  }

  private void forget(String server) {
    known.remove(server);
    claims.remove(server);
  }

  /**
   * Everything of {@code log} through this position is persisted on every known server, and on no suspect's
   * zombie only (-1: nothing known).
   */
  public long persistedThrough(String log) {
    long min = Long.MAX_VALUE;
    for (String server : known) {
      min = Math.min(min, claims.getOrDefault(server, Map.of()).getOrDefault(log, -1L));
    }
    for (Suspect s : suspects.values()) {
      min = Math.min(min, s.death().persistedThrough(log));
    }
    return min == Long.MAX_VALUE ? -1 : min;
  }

  /** The servers whose claims count, for status pages. */
  public Map<String, Map<String, Long>> claims() {
    Map<String, Map<String, Long>> view = new HashMap<>();
    known.forEach(s -> view.put(s, claims.getOrDefault(s, Map.of())));
    return view;
  }
}
