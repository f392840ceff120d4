package org.gstore.recovery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * One seeded schedule of the recovery bookkeeping: leaders commit to their WAL and ship to region servers, which
 * apply writes to a volatile memstore and persist them when they sync; servers publish T_P (the T_F values they
 * read before a sync), leaders publish T_F and forget what every known server has persisted; servers crash (losing
 * memstore and the leader's in-memory state, keeping the WAL), regions are reassigned, moved (a move flushes),
 * dead leaders' WALs are replayed (by a recoverer that may itself crash mid-way), servers restart under new names.
 *
 * <p>Shipments are numbered by the leader's single shipper thread; T_F is the last acknowledged shipment, and a
 * commit shipped again (after a server died) gets a new number, so a claim made before it arrived never covers it.
 * The model uses the production {@link Watermark} (which WAL records the shipper has been handed; commit
 * threads of one WAL batch hand over in any order) and {@link PersistenceTracker}. The checker asserts after
 * every event that every acknowledged commit is persisted, or still held by its live leader (to ship or to ship
 * again), or in its dead leader's WAL awaiting replay; and that nothing is forgotten (dropped from a leader's memory
 * or truncated from a WAL) before it is persisted. At the end the cluster is healed and every acknowledged commit
 * must be persisted.
 */
final class RecoverySimulation {
  private static final int SLOTS = 4;
  private static final int ROWS = 8;
  private static final int EVENTS = 600;
  private static final long RETAIN = 400; // how long a dead server's claim is kept (ticks); also the stall gap

  record Result(long seed, List<String> violations, int lost, int acknowledged, List<String> trace) {
    boolean ok() {
      return violations.isEmpty() && lost == 0;
    }
  }

  private record Commit(int id, String log, long seq, int row) {
    @Override
    public String toString() {
      return "c" + id + "(" + log + "#" + seq + " row " + row + ")";
    }
  }

  /** A shipped commit the leader still holds, with the number of its latest shipment. */
  private record Shipped(Commit commit, long shipNo) {}

  private final class Instance {
    final String name;
    boolean alive = true;
    long diedAt;
    long nextSeq;
    long nextShip;
    final List<Commit> wal = new ArrayList<>();
    final List<Commit> committing = new ArrayList<>(); // durable, acknowledged, not yet handed to the shipper
    final List<Commit> queue = new ArrayList<>();
    final List<Shipped> unpersisted = new ArrayList<>();
    final Watermark handedOver = new Watermark();
    final PersistenceTracker tracker = new PersistenceTracker(RETAIN);
    final Set<Integer> memstore = new HashSet<>();
    Map<String, Long> readFlushed; // T_F values read before a sync, to claim after it
    long lastHeartbeat;
    boolean walRecovered;

    Instance(String name) {
      this.name = name;
    }
  }

  private final long seed;
  private final boolean plantedBug;
  private final Random rnd;
  private final int[] generation = new int[SLOTS];
  private final List<Instance> instances = new ArrayList<>();
  private final Instance[] rowHost = new Instance[ROWS];
  private final Set<Integer> persisted = new HashSet<>();
  private final Map<String, Long> publishedFlushed = new TreeMap<>();
  private final Map<String, Map<String, Long>> publishedClaims = new TreeMap<>();
  private final List<Commit> acknowledged = new ArrayList<>();
  private final Map<String, Instance> byLog = new HashMap<>();
  private final List<String> violations = new ArrayList<>();
  private final List<String> trace = new ArrayList<>();
  private long now;
  private int nextCommit;

  /** @param plantedBug T_F jumps past a record that is not shipped yet: the checker must catch it */
  RecoverySimulation(long seed, boolean plantedBug) {
    this.seed = seed;
    this.plantedBug = plantedBug;
    this.rnd = new Random(seed);
  }

  Result run() {
    for (int s = 0; s < SLOTS; s++) {
      start(s);
    }
    for (int r = 0; r < ROWS; r++) {
      rowHost[r] = live().get(rnd.nextInt(live().size()));
    }
    for (int i = 0; i < EVENTS && violations.isEmpty(); i++) {
      now += 1 + rnd.nextInt(3);
      step();
      check();
    }
    heal();
    int lost = 0;
    for (Commit c : acknowledged) {
      if (!persisted.contains(c.id)) {
        lost++;
        violations.add("acknowledged commit " + c + " is lost after the cluster healed");
      }
    }
    return new Result(seed, violations, lost, acknowledged.size(), trace);
  }

  private void step() {
    int dice = rnd.nextInt(100);
    List<Instance> live = live();
    Instance any = live.get(rnd.nextInt(live.size()));
    if (dice < 18) {
      commit(any);
    } else if (dice < 28) {
      handOver(any);
    } else if (dice < 46) {
      ship(any);
    } else if (dice < 56) {
      any.readFlushed = new HashMap<>(publishedFlushed);
      log(any.name + " reads T_F " + any.readFlushed);
    } else if (dice < 64) {
      syncAndClaim(any);
    } else if (dice < 76) {
      if (rnd.nextInt(8) != 0) { // a leader sometimes misses heartbeats (a stall)
        heartbeat(any);
      }
    } else if (dice < 80) {
      if (live.size() > 2) {
        crash(any);
      }
    } else if (dice < 85) {
      reassign();
    } else if (dice < 88) {
      move(rnd.nextInt(ROWS));
    } else if (dice < 94) {
      recoverOneDeadWal(rnd.nextBoolean());
    } else if (dice < 97) {
      restartSomeSlot();
    } else {
      expireClaims();
    }
  }

  private void start(int slot) {
    Instance i = new Instance("s" + slot + "@" + (++generation[slot]));
    i.lastHeartbeat = now;
    publishedClaims.put(i.name, Map.of()); // registered, claiming nothing, before it can take any write
    instances.add(i);
    byLog.put(i.name, i);
    log("start " + i.name);
  }

  private List<Instance> live() {
    List<Instance> live = new ArrayList<>();
    for (Instance i : instances) {
      if (i.alive) {
        live.add(i);
      }
    }
    return live;
  }

  private Set<String> liveNames() {
    Set<String> names = new LinkedHashSet<>();
    live().forEach(i -> names.add(i.name));
    return names;
  }

  private void commit(Instance leader) {
    Commit c = new Commit(nextCommit++, leader.name, leader.nextSeq++, rnd.nextInt(ROWS));
    leader.wal.add(c);
    leader.committing.add(c);
    acknowledged.add(c);
    log(leader.name + " commits " + c);
  }

  /** A commit thread hands its commit to the shipper; threads of one WAL batch do so in any order. */
  private void handOver(Instance leader) {
    if (leader.committing.isEmpty()) {
      return;
    }
    Commit c = leader.committing.remove(rnd.nextInt(leader.committing.size()));
    leader.queue.add(c);
    leader.handedOver.mark(c.seq);
    if (plantedBug) {
      for (long s = 0; s < leader.nextSeq; s++) {
        leader.handedOver.mark(s); // BUG: the watermark passes records not handed over yet
      }
    }
  }

  private long shippedThrough(Instance leader) {
    return leader.nextShip - 1; // one shipper thread: shipments are acknowledged in the order they are numbered
  }

  private void ship(Instance leader) {
    if (leader.queue.isEmpty()) {
      return;
    }
    Commit c = leader.queue.get(leader.queue.size() > 1 && rnd.nextBoolean() ? 1 : 0); // out of order too
    Instance host = rowHost[c.row];
    if (host == null || !host.alive) {
      return; // region in transition: the shipper retries
    }
    host.memstore.add(c.id);
    leader.queue.remove(c);
    leader.unpersisted.add(new Shipped(c, leader.nextShip++));
    log(leader.name + " ships " + c + " to " + host.name + "; T_F " + shippedThrough(leader));
  }

  private void syncAndClaim(Instance server) {
    if (server.readFlushed == null) {
      return;
    }
    persisted.addAll(server.memstore);
    server.memstore.clear();
    publishedClaims.put(server.name, server.readFlushed);
    log(server.name + " syncs and claims T_P " + server.readFlushed);
    server.readFlushed = null;
  }

  private void heartbeat(Instance leader) {
    publishedFlushed.put(leader.name, shippedThrough(leader));
    PersistenceTracker.Heartbeat hb = leader.tracker.heartbeat(liveNames(), publishedClaims, now);
    leader.lastHeartbeat = now;
    for (PersistenceTracker.Death d : hb.deaths()) {
      List<Shipped> again = new ArrayList<>();
      for (Shipped s : leader.unpersisted) {
        if (s.shipNo() > d.persistedThrough(leader.name)) {
          again.add(s);
        }
      }
      shipAgain(leader, again, "death of " + d.server());
      leader.tracker.forget(d.server());
    }
    if (hb.shipEverythingAgain()) {
      shipAgain(leader, new ArrayList<>(leader.unpersisted), "a stalled heartbeat");
    }
    long through = leader.tracker.persistedThrough(leader.name);
    for (Shipped s : new ArrayList<>(leader.unpersisted)) {
      if (s.shipNo() <= through) {
        forgetting(s.commit(), leader.name + " drops its copy");
        leader.unpersisted.remove(s);
      }
    }
    // the WAL keeps every record the shipper has not seen or still holds
    long truncateThrough = leader.handedOver.through();
    for (Commit c : leader.queue) {
      truncateThrough = Math.min(truncateThrough, c.seq - 1);
    }
    for (Shipped s : leader.unpersisted) {
      truncateThrough = Math.min(truncateThrough, s.commit().seq - 1);
    }
    for (Commit c : new ArrayList<>(leader.wal)) {
      if (c.seq <= truncateThrough) {
        forgetting(c, leader.name + " truncates its WAL");
        leader.wal.remove(c);
      }
    }
    log(leader.name + " heartbeat: T_F " + shippedThrough(leader) + ", T_P " + through + ", WAL from "
        + (truncateThrough + 1) + ", deaths " + hb.deaths().stream().map(PersistenceTracker.Death::server).toList());
  }

  private void shipAgain(Instance leader, List<Shipped> shipped, String why) {
    leader.unpersisted.removeAll(shipped);
    shipped.forEach(s -> leader.queue.add(s.commit()));
    if (!shipped.isEmpty()) {
      log(leader.name + " ships " + shipped.stream().map(Shipped::commit).toList() + " again after " + why);
    }
  }

  private void forgetting(Commit c, String who) {
    if (!persisted.contains(c.id)) {
      violations.add(who + " forgets " + c + " before it is persisted (t=" + now + ")");
    }
  }

  private void crash(Instance i) {
    i.alive = false;
    i.diedAt = now;
    i.memstore.clear();
    i.committing.clear();
    i.queue.clear();
    i.unpersisted.clear();
    i.readFlushed = null;
    for (int r = 0; r < ROWS; r++) {
      if (rowHost[r] == i) {
        rowHost[r] = null;
      }
    }
    log("CRASH " + i.name);
  }

  private void reassign() {
    List<Instance> live = live();
    for (int r = 0; r < ROWS; r++) {
      if (rowHost[r] == null) {
        rowHost[r] = live.get(rnd.nextInt(live.size()));
        log("row " + r + " reopens on " + rowHost[r].name);
      }
    }
  }

  /** A graceful region move: the region is flushed as it closes. */
  private void move(int row) {
    Instance from = rowHost[row];
    if (from == null) {
      return;
    }
    List<Instance> live = live();
    Instance to = live.get(rnd.nextInt(live.size()));
    persisted.addAll(from.memstore); // a region close flushes the region (here: everything, which is stronger)
    from.memstore.clear();
    rowHost[row] = to;
    log("row " + row + " moves " + from.name + " -> " + to.name);
  }

  /** Replays a dead server's WAL with durable writes; {@code interrupted}: the recoverer dies part-way. */
  private void recoverOneDeadWal(boolean interrupted) {
    for (Instance i : instances) {
      if (!i.alive && !i.walRecovered) {
        for (Commit c : i.wal) {
          if (rowHost[c.row] == null) {
            return; // its region is still in transition: the replay retries
          }
        }
        int upTo = interrupted && !i.wal.isEmpty() ? rnd.nextInt(i.wal.size()) : i.wal.size();
        for (int k = 0; k < upTo; k++) {
          persisted.add(i.wal.get(k).id);
        }
        if (upTo == i.wal.size()) {
          i.wal.forEach(c -> forgetting(c, "recovery of " + i.name));
          i.wal.clear();
          i.walRecovered = true;
        }
        log("recovery of " + i.name + (upTo == i.wal.size() ? " done" : " interrupted after " + upTo));
        return;
      }
    }
  }

  private void restartSomeSlot() {
    for (int s = 0; s < SLOTS; s++) {
      final int slot = s;
      boolean running = instances.stream().anyMatch(i -> i.alive && i.name.startsWith("s" + slot + "@"));
      if (!running) {
        start(s);
        return;
      }
    }
  }

  /** Claims of servers dead and recovered for longer than the retention are deleted. */
  private void expireClaims() {
    for (Instance i : instances) {
      if (!i.alive && i.walRecovered && now - i.diedAt > RETAIN && publishedClaims.remove(i.name) != null) {
        log("claim of " + i.name + " expires");
      }
    }
  }

  private void check() {
    for (Commit c : acknowledged) {
      if (persisted.contains(c.id)) {
        continue;
      }
      Instance leader = byLog.get(c.log);
      boolean held = leader.alive
          ? leader.committing.contains(c) || leader.queue.contains(c)
              || leader.unpersisted.stream().anyMatch(s -> s.commit().equals(c))
          : leader.wal.contains(c);
      if (!held) {
        violations.add("acknowledged commit " + c + " is neither persisted nor held for replay (t=" + now + ")");
        return;
      }
    }
  }

  /** Restarts servers, reopens regions, replays every dead WAL, and lets heartbeats, ships and syncs settle. */
  private void heal() {
    restartSomeSlot();
    restartSomeSlot();
    reassign();
    for (int round = 0; round < 200 && violations.isEmpty(); round++) {
      now += 5;
      recoverOneDeadWal(false);
      for (Instance i : live()) {
        heartbeat(i);
        while (!i.committing.isEmpty()) {
          handOver(i);
        }
        while (!i.queue.isEmpty()) {
          ship(i);
        }
      }
      for (Instance i : live()) {
        i.readFlushed = new HashMap<>(publishedFlushed);
        syncAndClaim(i);
      }
      check();
    }
  }

  private void log(String event) {
    trace.add("t=" + now + " " + event);
    if (trace.size() > 60) {
      trace.remove(0);
    }
  }
}
