package org.gstore.recovery;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;

/**
 * One seeded schedule of a cluster's recovery, run on the production classes of {@code org.gstore.recovery}: each
 * G-Store instance has a {@link ShipmentLedger} and a {@link PersistenceHeartbeat} (with its {@link
 * PersistenceTracker}) over one shared {@link ClaimStore}, logs are named by {@link LogId} and replayed through
 * {@link ReplayFilter}. Only what HBase, HDFS and the network do is modelled: region servers with a volatile
 * memstore and a WAL they sync, regions that move (flushing), crash, pause (their RPCs wait; declared dead, they may
 * resume as a zombie and acknowledge what they received before they abort), graceful restarts under a new server
 * name, G-Store stopping on a live server and starting again under the same name, compactions that drop delete
 * markers, recoverers that die part-way, and ZooKeeper that fails now and then.
 *
 * <p>Groups have a leader row and member rows; a commit puts or deletes member rows, stamped with its commit
 * timestamp. The checker asserts after every event that each acknowledged commit is persisted in HBase, or held by
 * its live leader's ledger, or in a log not yet replayed; and, once the cluster has healed, that every row reads as
 * its last acknowledged commit left it (nothing lost, nothing resurrected).
 *
 * <p>Outcome rows ({@code gstore:outcomes}) are modelled too: written first with every shipment, replay and drain, to
 * whichever server hosts their region, persisted when written if {@link
 * org.gstore.recovery.hbase.CommitApplier#OUTCOME_DURABILITY} says so, else held in that server's memstore, which a
 * server that runs no G-Store region never syncs for a claim. Clients retry commits whose answer was lost at the
 * group's leader of the moment: a leader other than the one that made the commit must find its outcome row.
 *
 * <p>Quarantine is modelled too: HBase refuses writes to a member row for a while (a family dropped), so the commits
 * writing it are quarantined by the production {@link ShipmentLedger} and shipped again at heartbeats; clients delete
 * groups and form them again (a drain, then the rows released: the next incarnation's token fences out the earlier
 * one's writes for ever, and a replay skips them). A quarantined commit must hold its group's delete until it lands.
 *
 * <p>{@link Defect} plants one known bug each, by wiring the classes as a careless runtime would; the simulation
 * must catch every one.
 */
final class RecoverySimulation {
  /** A bug to plant. */
  enum Defect {
    NONE,
    /** Dead servers are not suspected of acknowledging as zombies (the loss the chaos run found). */
    NO_ZOMBIE_WINDOW,
    /** Logs named by server alone: an instance restarted on a live server is covered by its predecessor's claims. */
    LOG_NAMED_BY_SERVER,
    /** Replay writes every commit of a log, persisted marks ignored: a compacted delete comes back. */
    REPLAY_IGNORES_MARKS,
    /** A server claims without syncing its WAL first. */
    CLAIM_WITHOUT_SYNC,
    /** An instance takes shipped writes before it registers. */
    NO_REGISTRATION,
    /**
     * Outcome rows written with the shipping durability (ASYNC_WAL), as before issue 35: {@code gstore:outcomes} on
     * a server that registers no claim loses one after its commit was forgotten, and a retry commits it again.
     */
    OUTCOMES_WITH_SHIPPING_DURABILITY,
    /**
     * Drains leave quarantined commits out, as before issue 35: a group is deleted (and formed again) under a commit
     * HBase refuses for now, whose retries then carry the released rows' old token and are fenced out for good.
     */
    DRAIN_LEAVES_QUARANTINED_OUT,
    /**
     * A group's later commits ship while an earlier one is quarantined, as before: one that deletes a cell the
     * quarantined one writes lands first, and the older write, landing after the marker was purged, brings the
     * deleted value back.
     */
    QUARANTINE_OUT_OF_ORDER,
    /**
     * A leader region closes undrained while its server lives, when G-Store there has halted (it can drain no more),
     * as before issue 53's fix: the next host loads the group from HBase while the halted instance, which no replay
     * touches (its server lives), still holds acknowledged commits of it. The member-crash loss of issue 53.
     */
    CLOSE_UNDRAINED
  }

  record Result(long seed, Defect defect, List<String> violations, int acknowledged, List<String> trace) {
    boolean ok() {
      return violations.isEmpty();
    }
  }

  private static final int SLOTS = 4;
  private static final int GROUPS = 3;
  private static final int MEMBERS = 3;
  private static final int EVENTS = 500;
  private static final long RETAIN = 400;
  /**
   * What production assumes of HBase, and the zombie window must exceed together: the master moves a dead
   * server's regions within {@code REASSIGN_WITHIN} of its death, and an RPC is answered within {@code RPC_TIMEOUT}
   * or never.
   */
  private static final long REASSIGN_WITHIN = 30;
  private static final long RPC_TIMEOUT = 20;
  private static final long ZOMBIE_WINDOW = 60;
  /** Major compactions keep delete markers younger than this (G-Store sets HBase's time to purge deletes). */
  private static final long PURGE_DELETES_AFTER = 300;
  private static final String TABLE = "t";
  /** How often a leader ships its quarantined commits again. */
  private static final long QUARANTINE_RETRY = 15;

  /**
   * A commit: its writes (row → value, null for a delete), where it was logged, and the incarnation of its group
   * (whose token its writes carry: a later incarnation's fences refuse them).
   */
  private record Commit(int id, int group, long ts, Map<Integer, Integer> writes, String log, int incarnation) {}

  /** One version of a row: its commit timestamp and value (null: a delete marker). */
  private record Version(long ts, Integer value) {}

  /** A batch sent to the servers hosting its rows then ({@code hosts}: row → server), not yet answered. */
  private record Rpc(Instance from, List<Shipment> batch, long sentAt, Map<Integer, Server> hosts, long sentTick) {
    boolean waitsFor(Server s) {
      return hosts.containsValue(s);
    }
  }

  /** A region-server process. */
  private final class Server {
    final String name;
    boolean live = true;
    boolean paused;
    boolean declaredDead;
    long declaredAt;
    /** Applied, not yet synced to its WAL: row → versions. */
    final Map<Integer, List<Version>> memstore = new HashMap<>();
    /** Outcome rows applied and not yet synced: commit ids. */
    final Set<Integer> outcomeMemstore = new java.util.HashSet<>();
    Instance gstore;

    Server(String name) {
      this.name = name;
    }
  }

  /** One G-Store instance on a server: its log, ledger and heartbeat. */
  private final class Instance {
    final Server server;
    final String log;
    final ShipmentLedger ledger;
    final PersistenceHeartbeat heartbeat;
    final List<Shipment> outbox = new ArrayList<>();
    final List<Commit> committing = new ArrayList<>();
    final long[] nextSeq = new long[2];
    /** G-Store halted here (a lost writer batch; stopped as if crashed): nothing leaves it, nothing drains. */
    boolean halted;

    Instance(Server server) {
      this.server = server;
      this.log = defect == Defect.LOG_NAMED_BY_SERVER ? server.name : LogId.of(server.name, ++instances);
      this.ledger = new ShipmentLedger(false, 2, outbox::add);
      this.ledger.quarantineRetryMillis(QUARANTINE_RETRY);
      this.heartbeat = new PersistenceHeartbeat(server.name, log, claims, () -> sync(server), ledger,
          (neededAbove, retain) -> truncate(this, neededAbove), () -> now, RETAIN,
          defect == Defect.NO_ZOMBIE_WINDOW ? 0 : ZOMBIE_WINDOW);
    }
  }

  /** A log as HDFS holds it. */
  private static final class Log {
    final List<WalRecordProto> records = new ArrayList<>();
    final List<Long> positions = new ArrayList<>(); // stream * 2^32 + seq, to truncate by
    boolean fenced;
    boolean replayed;
  }

  private final long seed;
  private final Defect defect;
  private final Random rnd;
  /**
   * The draws about outcome rows (where their region is, which commit a client retries): apart from {@link #rnd},
   * so that the schedules of the other events stay what they were before outcome rows were modelled (the seeds
   * kept as regression cases replay as found).
   */
  private final Random outcomeRnd;
  /** The draws about refusals and group deletes, apart from {@link #rnd} for the same reason. */
  private final Random quarantineRnd;
  /** The draws about G-Store halting on live servers, apart from {@link #rnd} for the same reason. */
  private final Random haltRnd;
  /** Whether G-Store halts on live servers in this schedule (the seeds kept as found predate halts). */
  private final boolean halts;
  /** The instance each group's cache was last loaded at, by group: a leader elsewhere loads it again. */
  private final Map<Integer, Instance> cacheAt = new HashMap<>();
  /** Member rows whose writes HBase refuses for now (a dropped family, a space quota): commits to them quarantine. */
  private final Set<Integer> refusing = new java.util.TreeSet<>();
  /** Each group's incarnation: a delete releases its rows and the group forms again, with a new token. */
  private final int[] incarnation = new int[GROUPS];
  private final FlakyClaims claims;
  private final List<Server> servers = new ArrayList<>();
  private final int[] generation = new int[SLOTS];
  private final Integer[] rowHost = new Integer[GROUPS * (MEMBERS + 1)];
  private final Map<Integer, TreeMap<Long, Version>> persistedRows = new HashMap<>();
  /** Outcome rows persisted in {@code gstore:outcomes}: commit ids. */
  private final Set<Integer> persistedOutcomes = new java.util.HashSet<>();
  /** The server hosting {@code gstore:outcomes}'s region (null: in transition). */
  private Integer outcomesHost;
  /** Whether an outcome row is persisted when HBase acknowledges it: the production choice, or the defect's. */
  private final boolean outcomesSynced;
  private final Map<Integer, Long> compactedThrough = new HashMap<>();
  private final Map<String, Log> logs = new LinkedHashMap<>();
  private final Map<Long, Commit> byTs = new HashMap<>();
  private final List<Commit> acknowledged = new ArrayList<>();
  private final List<Rpc> pending = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private final List<String> trace = new ArrayList<>();
  private long now = 1;
  private long instances;
  private int nextCommit;

  /** A schedule as the seeds kept as regression cases were found: G-Store never halts on a live server. */
  RecoverySimulation(long seed, Defect defect) {
    this(seed, defect, defect == Defect.CLOSE_UNDRAINED);
  }

  /** @param halts whether G-Store halts on live servers now and then (its server aborts a little later) */
  RecoverySimulation(long seed, Defect defect, boolean halts) {
    this.seed = seed;
    this.defect = defect;
    this.halts = halts;
    this.haltRnd = new Random(seed * 31 + 53);
    this.rnd = new Random(seed);
    this.outcomeRnd = new Random(~seed);
    this.quarantineRnd = new Random(seed * 0x9E3779B97F4A7C15L + 35);
    this.claims = new FlakyClaims(rnd);
    this.outcomesSynced = defect != Defect.OUTCOMES_WITH_SHIPPING_DURABILITY
        && org.gstore.recovery.hbase.CommitApplier.OUTCOME_DURABILITY.ordinal()
            >= org.apache.hadoop.hbase.client.Durability.SYNC_WAL.ordinal();
  }

  Result run() {
    for (int s = 0; s < SLOTS; s++) {
      startServer(s);
    }
    for (int r = 0; r < rowHost.length; r++) {
      rowHost[r] = rnd.nextInt(SLOTS);
      ensureGStore(servers.get(rowHost[r]));
    }
    outcomesHost = outcomeRnd.nextInt(SLOTS);
    for (int i = 0; i < EVENTS && violations.isEmpty(); i++) {
      now += 1 + rnd.nextInt(4);
      step();
      check();
    }
    if (violations.isEmpty()) {
      heal();
    }
    return new Result(seed, defect, violations, acknowledged.size(), trace);
  }

  // ---------------------------------------------------------------------------------------------- the schedule

  private void step() {
    if (servers.stream().anyMatch(s -> s.live && s.declaredDead && now - s.declaredAt > REASSIGN_WITHIN)) {
      reassign(); // the master's crash procedure has moved the dead server's regions
    }
    if (halts) {
      haltOrAbort();
    }
    int outcomeDice = outcomeRnd.nextInt(100);
    if (outcomeDice < 4) {
      retryWithLostAnswer();
    } else if (outcomeDice < 6) {
      moveOutcomes();
    }
    int quarantineDice = quarantineRnd.nextInt(100);
    if (quarantineDice < 2) {
      toggleRefusal();
    } else if (quarantineDice < 5) {
      deleteGroup(quarantineRnd.nextInt(GROUPS));
    }
    int dice = rnd.nextInt(100);
    if (dice < 20) {
      commit(rnd.nextInt(GROUPS));
    } else if (dice < 30) {
      handOver(randomInstance());
    } else if (dice < 45) {
      ship(randomInstance());
    } else if (dice < 52) {
      deliver();
    } else if (dice < 64) {
      Instance i = randomInstance();
      if (i != null) {
        i.heartbeat.run();
      }
    } else if (dice < 68) {
      crash(randomServer());
    } else if (dice < 71) {
      pause(randomServer());
    } else if (dice < 75) {
      declareDead();
    } else if (dice < 78) {
      resume();
    } else if (dice < 84) {
      move(rnd.nextInt(rowHost.length));
    } else if (dice < 86) {
      stopGStoreSomewhere();
    } else if (dice < 88) {
      restartGracefully(randomServer());
    } else if (dice < 93) {
      replaySomeLog(rnd.nextInt(4) == 0);
    } else if (dice < 95) {
      compact(rnd.nextInt(rowHost.length));
    } else if (dice < 97) {
      reassign();
    } else {
      startMissingServer();
    }
  }

  private Server randomServer() {
    List<Server> up = servers.stream().filter(s -> s.live && !s.paused).toList();
    return up.size() <= 2 ? null : up.get(rnd.nextInt(up.size()));
  }

  private Instance randomInstance() {
    List<Instance> running = servers.stream().filter(s -> s.live && !s.paused && s.gstore != null)
        .map(s -> s.gstore).filter(i -> !i.halted).toList();
    return running.isEmpty() ? null : running.get(rnd.nextInt(running.size()));
  }

  private static int leaderRow(int group) {
    return group * (MEMBERS + 1);
  }

  private static int groupOf(int row) {
    return row / (MEMBERS + 1);
  }

  private static GroupRef ref(int group) {
    return new GroupRef(new GroupId("g" + group, Key.of(TABLE, "r" + leaderRow(group))), new Uid(new NodeId("n"), 1));
  }

  // ---------------------------------------------------------------------------------------------- servers

  private void startServer(int slot) {
    Server s = new Server("s" + slot + ",16020," + (++generation[slot]));
    if (servers.size() <= slot) {
      servers.add(s);
    } else {
      servers.set(slot, s);
    }
    claims.live.add(s.name);
    log("start " + s.name);
  }

  private void startMissingServer() {
    for (int slot = 0; slot < SLOTS; slot++) {
      if (!servers.get(slot).live) {
        startServer(slot);
        return;
      }
    }
  }

  /** G-Store starts on a server when a region opens there: a new instance, registered before it takes a write. */
  private void ensureGStore(Server s) {
    if (s.gstore == null) {
      s.gstore = new Instance(s);
      logs.putIfAbsent(s.gstore.log, new Log());
      if (defect != Defect.NO_REGISTRATION) {
        claims.store.register(s.name);
      }
      claims.store.publishFlushed(s.name, new ClaimStore.Flushed(s.gstore.log, -1));
      log("G-Store starts on " + s.name + " as " + s.gstore.log);
    }
  }

  /** kill -9: memstore and G-Store's memory are gone, the WAL is not; the master reassigns its regions. */
  private void crash(Server s) {
    if (s == null) {
      return;
    }
    die(s);
    log("CRASH " + s.name);
  }

  private void die(Server s) {
    s.live = false;
    s.memstore.clear();
    s.outcomeMemstore.clear();
    if (outcomesHost != null && servers.get(outcomesHost) == s) {
      outcomesHost = null;
    }
    s.gstore = null;
    claims.live.remove(s.name);
    pending.removeIf(rpc -> rpc.from().server == s);
    for (int r = 0; r < rowHost.length; r++) {
      if (rowHost[r] != null && servers.get(rowHost[r]) == s) {
        rowHost[r] = null;
      }
    }
  }

  /** SIGSTOP: the server answers nothing and runs nothing until resumed or declared dead. */
  private void pause(Server s) {
    if (s != null) {
      s.paused = true;
      log("PAUSE " + s.name);
    }
  }

  /**
   * A paused server's ZooKeeper session expires: it is dead to the cluster. Its regions stay where clients last
   * found them until the master reassigns them ({@link #reassign}), so writes may still be sent to it.
   */
  private void declareDead() {
    for (Server s : servers) {
      if (s.paused && !s.declaredDead) {
        s.declaredDead = true;
        s.declaredAt = now;
        claims.live.remove(s.name);
        log(s.name + " declared dead");
        return;
      }
    }
  }

  /**
   * SIGCONT: a server that was not declared dead goes on; a zombie first answers the RPCs that waited for it,
   * acknowledging writes into a memstore it can never persist, then learns of its death and aborts.
   */
  private void resume() {
    for (Server s : servers) {
      if (s.paused) {
        s.paused = false;
        if (s.declaredDead) {
          for (Rpc rpc : new ArrayList<>(pending)) {
            if (rpc.waitsFor(s) && answerable(rpc) && now - rpc.sentTick() <= RPC_TIMEOUT) {
              applyOrRefuse(rpc);
            }
          }
          die(s);
          log("zombie " + s.name + " answered its RPCs and aborted");
        } else {
          log("RESUME " + s.name);
        }
        return;
      }
    }
  }

  /**
   * G-Store halts on a live server now and then (its writer lost a batch, or it stopped as if crashed as the server
   * stops): it answers, ships and drains nothing any more, and its server aborts a little later. Until then HBase
   * may still try to close its regions.
   */
  private void haltOrAbort() {
    int dice = haltRnd.nextInt(100);
    for (Server s : servers) {
      if (s.live && s.gstore != null && s.gstore.halted) {
        if (dice < 15) {
          die(s);
          log("ABORT " + s.name + ": G-Store on it halted");
        }
        return;
      }
    }
    List<Server> running = servers.stream().filter(s -> s.live && !s.paused && s.gstore != null).toList();
    if (dice == 99 && !running.isEmpty()) {
      Server s = running.get(haltRnd.nextInt(running.size()));
      s.gstore.halted = true;
      log("G-Store halts on " + s.name + " (" + s.gstore.ledger.pendingCount() + " commits held)");
    }
  }

  /** A graceful stop: every region moves away (flushing), G-Store stops cleanly, the process ends. */
  private void restartGracefully(Server s) {
    if (s == null) {
      return;
    }
    if (moveEveryRowOff(s) && stopGStore(s)) {
      if (outcomesHost != null && servers.get(outcomesHost) == s) {
        persistOutcomes(s); // its last region closes, flushing
        outcomesHost = null;
      }
      s.live = false;
      claims.live.remove(s.name);
      log("graceful stop of " + s.name);
    }
  }

  private void stopGStoreSomewhere() {
    for (Server s : servers) {
      if (s.live && !s.paused && s.gstore != null && servers.indexOf(s) == rnd.nextInt(SLOTS)) {
        if (moveEveryRowOff(s)) {
          stopGStore(s);
        }
        return;
      }
    }
  }

  /** Moves every row {@code s} hosts elsewhere; false if a drain could not finish (the stop waits). */
  private boolean moveEveryRowOff(Server s) {
    for (int r = 0; r < rowHost.length; r++) {
      if (rowHost[r] != null && servers.get(rowHost[r]) == s && !move(r)) {
        return false;
      }
    }
    return true;
  }

  /** G-Store's last region left a live server: it stops cleanly and unregisters (as {@code GStoreServer.close}). */
  private boolean stopGStore(Server s) {
    if (s.gstore == null) {
      return true;
    }
    for (int r = 0; r < rowHost.length; r++) {
      if (rowHost[r] != null && servers.get(rowHost[r]) == s) {
        return false;
      }
    }
    persist(s); // its regions flushed as they closed
    claims.store.unregister(s.name);
    claims.store.publishFlushed(s.name, new ClaimStore.Flushed(LogId.of(s.name, ++instances), -1));
    log("G-Store stops on " + s.name + " (" + s.gstore.ledger.pendingCount() + " commits held; its log waits for"
        + " replay)");
    s.gstore = null;
    return true;
  }

  // ---------------------------------------------------------------------------------------------- regions

  /**
   * Regions of dead servers open on live ones (after HBase split their WAL: only what they synced is there); a
   * zombie keeps answering for them until it aborts.
   */
  private void reassign() {
    for (int r = 0; r < rowHost.length; r++) {
      if (rowHost[r] != null && servers.get(rowHost[r]).declaredDead) {
        rowHost[r] = null;
      }
    }
    if (outcomesHost != null && servers.get(outcomesHost).declaredDead) {
      outcomesHost = null;
    }
    List<Integer> up = upServers();
    if (outcomesHost == null) {
      if (!up.isEmpty()) { // any server, one that runs no G-Store region (it registers no claim) included
        outcomesHost = up.get(outcomeRnd.nextInt(up.size()));
        log("gstore:outcomes opens on " + servers.get(outcomesHost).name);
      }
    }
    for (int r = 0; r < rowHost.length; r++) {
      if (rowHost[r] == null && !up.isEmpty()) {
        rowHost[r] = up.get(rnd.nextInt(up.size()));
        ensureGStore(servers.get(rowHost[r]));
        log("row " + r + " opens on " + servers.get(rowHost[r]).name);
      }
    }
  }

  /**
   * A graceful move: a leader row's group is drained first (its commits shipped, the unpersisted ones written again
   * persisted, a persisted mark logged); the region flushes as it closes. False if it could not happen now.
   */
  private boolean move(int row) {
    Integer from = rowHost[row];
    if (from == null || servers.get(from).paused) {
      return false;
    }
    Server old = servers.get(from);
    boolean leads = row == leaderRow(groupOf(row)) && old.gstore != null;
    if (leads && old.gstore.halted && defect != Defect.CLOSE_UNDRAINED) {
      die(old); // a leader region never closes undrained while its server lives: the close fails, the server aborts
      log("row " + row + " cannot close undrained on " + old.name + ", whose G-Store halted: the server aborts");
      return false;
    }
    if (leads && !old.gstore.halted && !drain(old.gstore, groupOf(row))) {
      return false;
    }
    List<Integer> up = upServers();
    if (up.isEmpty()) {
      return false;
    }
    int to = up.get(rnd.nextInt(up.size()));
    persistRow(old, row);
    rowHost[row] = to;
    ensureGStore(servers.get(to));
    log("row " + row + " moves " + old.name + " -> " + servers.get(to).name);
    return true;
  }

  /** The running servers. */
  private List<Integer> upServers() {
    List<Integer> up = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      if (servers.get(i).live && !servers.get(i).paused) {
        up.add(i);
      }
    }
    return up;
  }

  /** {@code gstore:outcomes}'s region moves (a balancer run): it flushes as it closes. */
  private void moveOutcomes() {
    if (outcomesHost == null || servers.get(outcomesHost).paused) {
      return;
    }
    Server old = servers.get(outcomesHost);
    persistOutcomes(old);
    List<Integer> up = upServers();
    outcomesHost = up.get(outcomeRnd.nextInt(up.size()));
    log("gstore:outcomes moves " + old.name + " -> " + servers.get(outcomesHost).name);
  }

  /**
   * A client whose commit's answer was lost sends it again, to the group's leader now. The instance that made it
   * remembers it (or looks it up once what it forgot is shipped); any other leader serves the group only once every
   * log holding it was replayed, and must find the commit's outcome row, or it would commit it a second time.
   */
  private void retryWithLostAnswer() {
    if (acknowledged.isEmpty()) {
      return;
    }
    Commit c = acknowledged.get(outcomeRnd.nextInt(acknowledged.size()));
    Integer host = rowHost[leaderRow(c.group())];
    if (host == null || !servers.get(host).live || servers.get(host).paused || servers.get(host).gstore == null) {
      return;
    }
    Instance leader = servers.get(host).gstore;
    if (leader.log.equals(c.log()) || !servable(c.group(), leader.log)) {
      return;
    }
    Server outcomes = outcomesHost == null ? null : servers.get(outcomesHost);
    if (outcomes == null || outcomes.paused) {
      return; // the lookup waits for the region
    }
    if (!persistedOutcomes.contains(c.id()) && !outcomes.outcomeMemstore.contains(c.id())) {
      violations.add("acknowledged commit c" + c.id() + " retried at " + leader.log + " finds no outcome row: it"
          + " would be applied twice (t=" + now + ")");
    }
  }

  private boolean drain(Instance leader, int group) {
    GroupRef g = ref(group);
    while (!leader.committing.isEmpty()) {
      handOverOne(leader, 0);
    }
    if (pending.stream().anyMatch(rpc -> rpc.from() == leader)) {
      return false; // the shipper's batch in flight is answered first
    }
    List<Shipment> mine = leader.outbox.stream().filter(s -> s.group().equals(g)).toList();
    if (!mine.isEmpty() && !send(leader, new ArrayList<>(mine), true)) {
      return false;
    }
    List<Shipment> unpersisted = leader.ledger.unpersistedOf(g);
    for (Shipment s : unpersisted) {
      for (Map.Entry<Integer, Integer> w : byTs.get(s.commitTs()).writes().entrySet()) {
        if (rowHost[w.getKey()] == null || refusal(byTs.get(s.commitTs())) != null) {
          return false;
        }
      }
    }
    unpersisted.forEach(s -> writePersisted(byTs.get(s.commitTs())));
    leader.ledger.persistedOnDrain(unpersisted);
    boolean quarantinedLeftOut = defect == Defect.DRAIN_LEAVES_QUARANTINED_OUT
        && leader.ledger.quarantineCause(g).isPresent();
    if (leader.ledger.pendingCount(g) > 0 && !quarantinedLeftOut) {
      return false;
    }
    WalRecordProto mark = WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(g)).setCommitTs(0)
        .setTxnId("").setPersistedMark(true).build();
    leader.ledger.logged(append(leader, group, mark));
    log(leader.log + " drained group " + group + " and logged a persisted mark");
    return true;
  }

  /** A major compaction of a row's persisted versions drops its delete markers and what they hide. */
  private void compact(int row) {
    TreeMap<Long, Version> versions = persistedRows.get(row);
    if (versions == null) {
      return;
    }
    Long newestDelete = null;
    for (Version v : versions.values()) {
      if (v.value() == null && v.ts() < (now - PURGE_DELETES_AFTER) * 100) {
        newestDelete = v.ts();
      }
    }
    if (newestDelete != null) {
      versions.headMap(newestDelete, true).clear();
      compactedThrough.merge(row, newestDelete, Math::max);
      log("compaction of row " + row + " drops versions through " + newestDelete);
    }
  }

  // ---------------------------------------------------------------------------------------------- commits

  private void commit(int group) {
    Integer host = rowHost[leaderRow(group)];
    if (host == null || !servers.get(host).live || servers.get(host).paused) {
      return;
    }
    Instance leader = servers.get(host).gstore;
    if (leader == null || leader.halted || !servable(group, leader.log)) {
      return; // its region waits for the logs holding the group to be replayed
    }
    if (cacheAt.get(group) != leader) {
      loadCache(group, leader);
    }
    if (leader.ledger.quarantineCause(ref(group)).isPresent()) {
      log("a commit of group " + group + " is refused: RegionTooBusyException, a commit of it is quarantined");
      return;
    }
    Map<Integer, Integer> writes = new TreeMap<>();
    int id = nextCommit++;
    for (int k = 0; k < 1 + rnd.nextInt(2); k++) {
      int row = leaderRow(group) + 1 + rnd.nextInt(MEMBERS);
      writes.put(row, rnd.nextInt(6) == 0 ? null : id);
    }
    Commit c = new Commit(id, group, now * 100 + (id % 100), writes, leader.log, incarnation[group]);
    WalRecordProto record = WalRecordProto.newBuilder().setGroup(DatagramCodec.toProto(ref(group)))
        .setCommitTs(c.ts()).setTxnId("c" + id).build();
    WalPosition at = append(leader, group, record);
    byTs.put(c.ts(), c);
    acknowledged.add(c);
    leader.committing.add(c);
    positions.put(c.ts(), at);
    log(leader.log + " commits c" + id + " " + writes + " at " + at);
  }

  private final Map<Long, WalPosition> positions = new HashMap<>();

  /**
   * A leader that did not serve the group before loads its cache from HBase: every acknowledged commit of the group
   * must be readable there by then, or be its own and still held by it (what no replay or drain put there, the
   * group's transactions would never see).
   * Where a row's region is in transition or its server paused, the load waits, and is checked at a later commit.
   */
  private void loadCache(int group, Instance leader) {
    for (int row = leaderRow(group); row <= leaderRow(group) + MEMBERS; row++) {
      if (rowHost[row] == null || !servers.get(rowHost[row]).live || servers.get(rowHost[row]).paused) {
        return;
      }
    }
    for (Commit c : acknowledged) {
      if (c.group() == group && !readable(c) && !holds(leader, c)) {
        violations.add("group " + group + "'s cache loaded at " + leader.log + " misses acknowledged commit c"
            + c.id() + " " + c.writes() + " (ts " + c.ts() + ", log " + c.log() + ") (t=" + now + ")");
        return;
      }
    }
    cacheAt.put(group, leader);
    log("group " + group + "'s cache loads at " + leader.log);
  }

  /** Whether {@code leader} made {@code c} and still holds it (its cache has it: a cache only it can have made). */
  private boolean holds(Instance leader, Commit c) {
    Shipment s = new Shipment(ref(c.group()), c.ts(), "t" + c.ts(), List.of(), positions.get(c.ts()));
    return c.log().equals(leader.log) && (leader.committing.contains(c) || leader.ledger.holds(s));
  }

  /** Whether a read of HBase now shows each row {@code c} wrote at {@code c} or later. */
  private boolean readable(Commit c) {
    for (int row : c.writes().keySet()) {
      if (c.ts() <= compactedThrough.getOrDefault(row, 0L)) {
        continue;
      }
      TreeMap<Long, Version> persisted = persistedRows.get(row);
      long newest = persisted == null || persisted.isEmpty() ? Long.MIN_VALUE : persisted.lastKey();
      for (Version v : servers.get(rowHost[row]).memstore.getOrDefault(row, List.of())) {
        newest = Math.max(newest, v.ts());
      }
      if (newest < c.ts()) {
        return false;
      }
    }
    return true;
  }

  private WalPosition append(Instance leader, int group, WalRecordProto record) {
    int stream = group % 2;
    WalPosition at = new WalPosition(stream, leader.nextSeq[stream]++);
    Log log = logs.get(leader.log);
    log.records.add(record);
    log.positions.add(((long) stream << 32) + at.seq());
    return at;
  }

  /** Whether every log that holds commits of {@code group}, other than the leader's own, has been replayed. */
  private boolean servable(int group, String own) {
    GroupRef g = ref(group);
    for (Map.Entry<String, Log> e : logs.entrySet()) {
      if (!e.getKey().equals(own) && !e.getValue().replayed && !running(e.getKey())
          && e.getValue().records.stream().anyMatch(r -> DatagramCodec.fromProto(r.getGroup()).equals(g))) {
        return false;
      }
    }
    return true;
  }

  private boolean running(String log) {
    return servers.stream().anyMatch(s -> s.live && !s.declaredDead && s.gstore != null && s.gstore.log.equals(log));
  }

  /** Commit threads of one WAL batch hand their commits to the shipper in any order across groups. */
  private void handOver(Instance leader) {
    if (leader != null && !leader.committing.isEmpty()) {
      // groups' commits reach the ledger in any order (WAL streams sync apart), but one group's in commit order:
      // TransactionManager hands a commit over under the group's commit lock, before the group's next commit
      int group = leader.committing.get(rnd.nextInt(leader.committing.size())).group();
      int first = 0;
      while (leader.committing.get(first).group() != group) {
        first++;
      }
      handOverOne(leader, first);
    }
  }

  private void handOverOne(Instance leader, int index) {
    Commit c = leader.committing.remove(index);
    Shipment s = new Shipment(ref(c.group()), c.ts(), "t" + c.ts(), List.of(), positions.get(c.ts()));
    leader.ledger.handOver(s);
    leader.outbox.add(s);
  }

  /**
   * The leader's shipper sends a batch from its outbox, unless one is still in flight: {@code UpdateShipper} ships
   * on one thread and sends the next batch only once the last one is answered, which keeps a group's commits in
   * order when HBase refuses one (a model that let batches overtake each other shipped a commit of a group past
   * an earlier one being shipped again out of quarantine, seed 8000002340).
   */
  private void ship(Instance leader) {
    if (leader != null && !leader.outbox.isEmpty() && pending.stream().noneMatch(rpc -> rpc.from() == leader)) {
      send(leader, new ArrayList<>(leader.outbox.subList(0, 1 + rnd.nextInt(leader.outbox.size()))), false);
    }
  }

  /**
   * Sends a batch to the servers hosting its rows: answered at once when they all run, or left waiting for a
   * paused one. False if a region is in transition (the shipper tries again later).
   */
  private boolean send(Instance leader, List<Shipment> batch, boolean mustAnswerNow) {
    Map<Integer, Server> hosts = new HashMap<>();
    for (Shipment s : batch) {
      for (int row : byTs.get(s.commitTs()).writes().keySet()) {
        if (rowHost[row] == null) {
          return false;
        }
        hosts.put(row, servers.get(rowHost[row]));
      }
    }
    Rpc rpc = new Rpc(leader, batch, leader.ledger.epoch(), hosts, now);
    boolean waits = hosts.values().stream().anyMatch(t -> t.paused) || outcomesPaused();
    if (waits && mustAnswerNow) {
      return false;
    }
    leader.outbox.removeAll(batch);
    if (waits) {
      pending.add(rpc);
      log(leader.log + " sends " + commits(batch) + " to a paused server");
    } else {
      applyOrRefuse(rpc);
    }
    return true;
  }

  /** Whether the outcome rows' server is paused: a batch, whose outcome rows go first, waits for it. */
  private boolean outcomesPaused() {
    return outcomesHost != null && servers.get(outcomesHost).paused;
  }

  /** Whether every server the RPC went to runs (a zombie resuming counts) and the sender can take the answer. */
  private boolean answerable(Rpc rpc) {
    return rpc.from().server.live && !rpc.from().server.paused
        && rpc.hosts().values().stream().allMatch(t -> t.live && (!t.paused || t.declaredDead));
  }

  /**
   * Waiting RPCs: one to a server that died fails, one whose servers all run is answered, any may time out; a
   * failed one is sent again by the shipper.
   */
  private void deliver() {
    for (Rpc rpc : new ArrayList<>(pending)) {
      boolean failed = rpc.hosts().values().stream().anyMatch(t -> !t.live);
      if (failed || now - rpc.sentTick() > RPC_TIMEOUT || rnd.nextInt(4) == 0) {
        pending.remove(rpc);
        rpc.from().outbox.addAll(0, rpc.batch());
        log("RPC of " + commits(rpc.batch()) + (failed ? " failed" : " timed out"));
      } else if (rpc.hosts().values().stream().noneMatch(t -> t.paused) && !outcomesPaused() && answerable(rpc)) {
        applyOrRefuse(rpc);
      }
    }
  }

  /**
   * An RPC reaches a region only while its server hosts it: a region that closed (moved off a live server) refused
   * it (NotServingRegionException; HBase's close waits for writes in progress and flushes them, so none lands
   * after), and the shipper sends the batch again. A zombie still answers for the regions it lost to reassignment.
   * Modelled wrongly before (every RPC landed in the memstore it was sent to, region or not), which lost two
   * acknowledged commits in about 300,000 schedules (seeds 3016151 and 2000213).
   */
  private void applyOrRefuse(Rpc rpc) {
    boolean closedMeanwhile = rpc.hosts().entrySet().stream().anyMatch(e -> !e.getValue().declaredDead
        && (rowHost[e.getKey()] == null || servers.get(rowHost[e.getKey()]) != e.getValue()))
        || outcomesHost == null; // the outcome rows go first, to the region's host now
    if (closedMeanwhile) {
      pending.remove(rpc);
      rpc.from().outbox.addAll(0, rpc.batch());
      log("RPC of " + commits(rpc.batch()) + " refused: a region moved since it was sent");
    } else {
      apply(rpc);
    }
  }

  /** The batch's writes go to the memstores of the servers it was sent to, and the leader takes the answer. */
  private void apply(Rpc rpc) {
    pending.remove(rpc);
    List<Shipment> landed = new ArrayList<>();
    List<Shipment> inCommitOrder = new ArrayList<>(rpc.batch()); // as the shipper ships a refused batch
    inCommitOrder.sort(java.util.Comparator.comparingLong(Shipment::commitTs));
    if (inCommitOrder.stream().anyMatch(s -> refusal(byTs.get(s.commitTs())) != null)) {
      applyWhatHBaseTakes(rpc, inCommitOrder);
    }
    for (Shipment s : inCommitOrder) {
      Commit c = byTs.get(s.commitTs());
      if (defect != Defect.QUARANTINE_OUT_OF_ORDER
          && rpc.from().ledger.quarantineBehindEarlier(s, new java.util.HashSet<>(landed))) {
        log(rpc.from().log + " holds c" + c.id() + " behind its group's quarantined commit");
        continue;
      }
      String refusal = refusal(c);
      if (refusal != null) { // the shipper ships the batch one commit at a time, and quarantines this one
        if (rpc.sentAt() == rpc.from().ledger.epoch()) {
          rpc.from().ledger.refused(s, refusal);
        } else {
          rpc.from().outbox.add(s);
        }
        log(rpc.from().log + " quarantines c" + c.id() + ": " + refusal);
        continue;
      }
      landed.add(s);
      if (outcomesSynced) {
        persistedOutcomes.add(c.id());
      } else {
        servers.get(outcomesHost).outcomeMemstore.add(c.id());
      }
      c.writes().forEach((row, value) -> rpc.hosts().get(row).memstore
          .computeIfAbsent(row, r -> new ArrayList<>()).add(new Version(c.ts(), value)));
    }
    if (!landed.isEmpty()) {
      rpc.from().ledger.shipped(landed, rpc.sentAt());
      log(rpc.from().log + " shipped " + commits(landed) + "; T_F " + rpc.from().ledger.shippedThrough());
    }
  }

  /**
   * A batch HBase refuses in part: it applies row by row, so before the shipper learns of the refusal (and ships the
   * batch again one commit at a time) the outcome rows and every cell it does not refuse are in, those of commits
   * held behind the refused one included (the shipper sent them along with it). They are held all the same, and
   * written again after it.
   */
  private void applyWhatHBaseTakes(Rpc rpc, List<Shipment> inCommitOrder) {
    java.util.Set<Shipment> batch = new java.util.HashSet<>(inCommitOrder);
    for (Shipment s : inCommitOrder) {
      Commit c = byTs.get(s.commitTs());
      if (defect != Defect.QUARANTINE_OUT_OF_ORDER && rpc.from().ledger.blockedBehindEarlier(s, batch)) {
        continue; // the shipper does not send it
      }
      if (c.incarnation() < incarnation[c.group()]) {
        continue; // fenced: none of its cells is taken
      }
      if (outcomesSynced) {
        persistedOutcomes.add(c.id());
      } else {
        servers.get(outcomesHost).outcomeMemstore.add(c.id());
      }
      c.writes().forEach((row, value) -> {
        if (!refusing.contains(row)) {
          rpc.hosts().get(row).memstore.computeIfAbsent(row, r -> new ArrayList<>()).add(new Version(c.ts(), value));
        }
      });
    }
    log(rpc.from().log + " sent " + commits(inCommitOrder) + "; HBase took what it does not refuse");
  }

  /**
   * Why HBase refuses the commit's writes for good, or null: a row whose family was dropped (for now), or a
   * token of an earlier incarnation of its group, whose rows were released since (the fence: for ever).
   */
  private String refusal(Commit c) {
    if (c.incarnation() < incarnation[c.group()]) {
      return "RowGroupedException: its group was deleted since";
    }
    return c.writes().keySet().stream().anyMatch(refusing::contains) ? "NoSuchColumnFamilyException" : null;
  }

  /** A family of a member row is dropped (HBase refuses writes to it), or put back. */
  private void toggleRefusal() {
    if (refusing.isEmpty()) {
      int group = quarantineRnd.nextInt(GROUPS);
      int row = leaderRow(group) + 1 + quarantineRnd.nextInt(MEMBERS);
      refusing.add(row);
      log("HBase refuses writes to row " + row + " (a family dropped)");
    } else {
      refusing.clear();
      log("HBase takes writes to every row again (the family put back)");
    }
  }

  /**
   * A client deletes a group and forms it again: its leader drains it (every commit shipped and persisted, a
   * persisted mark logged), the rows are released, and the new incarnation's commits carry a new token.
   */
  private void deleteGroup(int group) {
    Integer host = rowHost[leaderRow(group)];
    if (host == null || !servers.get(host).live || servers.get(host).paused) {
      return;
    }
    Instance leader = servers.get(host).gstore;
    if (leader == null || leader.halted || !servable(group, leader.log) || !drain(leader, group)) {
      return;
    }
    incarnation[group]++;
    cacheAt.remove(group); // formed again: its next leader loads it
    log("group " + group + " deleted at " + leader.log + "; formed again as incarnation " + incarnation[group]);
  }

  private static String commits(List<Shipment> batch) {
    return batch.stream().map(s -> "ts" + s.commitTs()).collect(Collectors.joining(",", "[", "]"));
  }

  // ---------------------------------------------------------------------------------------------- persistence

  /** The heartbeat's WAL sync: what the server applied is persisted (a zombie's WAL is fenced: it fails). */
  private void sync(Server s) throws IOException {
    if (s.declaredDead) {
      throw new IOException("WAL fenced");
    }
    if (defect != Defect.CLAIM_WITHOUT_SYNC) {
      persist(s);
    }
  }

  private void persist(Server s) {
    s.memstore.forEach((row, versions) -> versions.forEach(v -> persistVersion(row, v)));
    s.memstore.clear();
    persistOutcomes(s);
  }

  private void persistOutcomes(Server s) {
    persistedOutcomes.addAll(s.outcomeMemstore);
    s.outcomeMemstore.clear();
  }

  private void persistRow(Server s, int row) {
    List<Version> versions = s.memstore.remove(row);
    if (versions != null) {
      versions.forEach(v -> persistVersion(row, v));
    }
  }

  private void persistVersion(int row, Version v) {
    persistedRows.computeIfAbsent(row, r -> new TreeMap<>()).put(v.ts(), v);
  }

  /** A replay or a drain writes the commit with SYNC_WAL, its outcome row first. */
  private void writePersisted(Commit c) {
    persistedOutcomes.add(c.id());
    c.writes().forEach((row, value) -> persistVersion(row, new Version(c.ts(), value)));
  }

  /** Truncation deletes whole files, so records the shipper no longer needs go only now and then. */
  private int truncate(Instance i, java.util.function.IntToLongFunction neededAbove) {
    if (rnd.nextInt(4) != 0) {
      return 0;
    }
    Log log = logs.get(i.log);
    for (int k = log.records.size() - 1; k >= 0; k--) {
      long p = log.positions.get(k);
      int stream = (int) (p >>> 32);
      long seq = p & 0xffffffffL;
      if (seq <= neededAbove.applyAsLong(stream)) {
        WalRecordProto r = log.records.get(k);
        if (!r.getPersistedMark() && !durable(byTs.get(r.getCommitTs()))) {
          violations.add(i.log + " truncates c" + byTs.get(r.getCommitTs()).id() + " before it is persisted");
        }
        log.records.remove(k);
        log.positions.remove(k);
      }
    }
    return 0;
  }

  /**
   * A live server replays one log that no running instance may still write (fenced first); its recoverer may die
   * part-way, leaving the log for the next pass.
   */
  private void replaySomeLog(boolean recovererDies) {
    List<Server> up = servers.stream().filter(s -> s.live && !s.paused).toList();
    if (up.isEmpty()) {
      return;
    }
    Server self = up.get(rnd.nextInt(up.size()));
    Map<String, ClaimStore.Flushed> current = claims.store.flushed();
    for (Map.Entry<String, Log> e : logs.entrySet()) {
      Log log = e.getValue();
      if (log.replayed || running(e.getKey()) || (self.gstore != null && e.getKey().equals(self.gstore.log))
          || LogId.mayStillBeWritten(e.getKey(), self.name, claims.live, current)) {
        continue;
      }
      log.fenced = true;
      ReplayFilter filter = new ReplayFilter();
      for (int k = 0; k < log.records.size(); k++) {
        filter.observe(k, log.records.get(k));
      }
      for (int k = 0; k < log.records.size(); k++) {
        WalRecordProto r = log.records.get(k);
        boolean replays = defect == Defect.REPLAY_IGNORES_MARKS ? !r.getPersistedMark() : filter.replays(k, r);
        if (!replays) {
          continue;
        }
        Commit c = byTs.get(r.getCommitTs());
        if (c.writes().keySet().stream().anyMatch(row -> rowHost[row] == null)) {
          log("replay of " + e.getKey() + " waits for a region");
          return;
        }
        if (c.incarnation() < incarnation[c.group()]) {
          continue; // the fence refuses it as RowGroupedException: the rows left the group, the replay skips it
        }
        if (refusal(c) != null) {
          log("replay of " + e.getKey() + " waits: HBase refuses c" + c.id());
          return;
        }
        if (recovererDies && rnd.nextInt(3) == 0) {
          log("the recoverer of " + e.getKey() + " dies part-way");
          return;
        }
        writePersisted(c);
      }
      log.replayed = true;
      log("replay of " + e.getKey() + " by " + self.name);
      return;
    }
  }

  // ---------------------------------------------------------------------------------------------- checks

  /** Whether each write of {@code c} is persisted, or was compacted away under a newer delete. */
  private boolean durable(Commit c) {
    for (int row : c.writes().keySet()) {
      TreeMap<Long, Version> versions = persistedRows.get(row);
      if ((versions == null || !versions.containsKey(c.ts())) && c.ts() > compactedThrough.getOrDefault(row, 0L)) {
        return false;
      }
    }
    return true;
  }

  /** Every acknowledged commit is persisted, or held by its running leader, or in a log not yet replayed. */
  private void check() {
    for (Commit c : acknowledged) {
      if (durable(c)) {
        continue;
      }
      Log log = logs.get(c.log());
      boolean inLog = log.records.stream().anyMatch(r -> !r.getPersistedMark() && r.getCommitTs() == c.ts());
      Instance leader = servers.stream().filter(s -> s.gstore != null && s.gstore.log.equals(c.log()))
          .map(s -> s.gstore).findFirst().orElse(null);
      Shipment s = new Shipment(ref(c.group()), c.ts(), "t" + c.ts(), List.of(), positions.get(c.ts()));
      boolean leaderRuns = leader != null && !leader.server.declaredDead;
      boolean held = leaderRuns && (leader.committing.contains(c) || leader.ledger.holds(s));
      boolean awaitsReplay = !leaderRuns && !log.replayed && inLog;
      if (!held && !awaitsReplay) {
        violations.add("acknowledged commit c" + c.id() + " " + c.writes() + " (ts " + c.ts() + ", log " + c.log()
            + ") is neither persisted, nor held, nor awaiting replay (t=" + now + ")");
        return;
      }
    }
  }

  /** Every process back, every log replayed, everything shipped and claimed; then rows must read as committed. */
  private void heal() {
    refusing.clear(); // the operator puts the family back
    servers.stream().filter(s -> s.live && s.gstore != null && s.gstore.halted).toList().forEach(s -> {
      die(s);
      log("ABORT " + s.name + ": G-Store on it halted");
    });
    servers.forEach(s -> {
      if (s.paused) {
        s.paused = false;
        if (s.declaredDead) {
          die(s);
        }
      }
    });
    for (int slot = 0; slot < SLOTS; slot++) {
      if (!servers.get(slot).live) {
        startServer(slot);
      }
    }
    reassign();
    for (int round = 0; round < 60 && violations.isEmpty(); round++) {
      now += ZOMBIE_WINDOW / 4;
      replaySomeLog(false);
      deliver();
      for (Server s : servers) {
        if (s.gstore != null) {
          while (!s.gstore.committing.isEmpty()) {
            handOverOne(s.gstore, 0);
          }
          if (!s.gstore.outbox.isEmpty()) {
            send(s.gstore, new ArrayList<>(s.gstore.outbox), false);
          }
          s.gstore.heartbeat.run();
        }
      }
      check();
    }
    servers.forEach(this::persist); // every region flushed
    Map<Integer, Integer> expected = new HashMap<>();
    Map<Integer, Long> newest = new HashMap<>();
    for (Commit c : acknowledged) {
      c.writes().forEach((row, value) -> {
        if (c.ts() > newest.getOrDefault(row, Long.MIN_VALUE)) {
          newest.put(row, c.ts());
          expected.put(row, value);
        }
      });
    }
    for (int row = 0; row < rowHost.length; row++) {
      TreeMap<Long, Version> versions = persistedRows.getOrDefault(row, new TreeMap<>());
      Integer reads = versions.isEmpty() ? null : versions.lastEntry().getValue().value();
      if (!java.util.Objects.equals(reads, expected.get(row))) {
        violations.add("row " + row + " reads " + reads + " after the cluster healed; its last acknowledged commit"
            + " (ts " + newest.get(row) + ") left " + expected.get(row));
      }
    }
  }

  private void log(String event) {
    trace.add("t=" + now + " " + event);
    if (trace.size() > Integer.getInteger("gstore.recovery.sim.trace", 80)) {
      trace.remove(0);
    }
  }

  /** The shared claim store, whose every call fails now and then (ZooKeeper unavailable). */
  private static final class FlakyClaims implements ClaimStore {
    final InMemoryClaims store = new InMemoryClaims();
    final Set<String> live = store.live;
    private final Random rnd;

    FlakyClaims(Random rnd) {
      this.rnd = rnd;
    }

    private void maybeFail() throws IOException {
      if (rnd.nextInt(25) == 0) {
        throw new IOException("ZooKeeper unavailable");
      }
    }

    @Override
    public Set<String> liveServers() throws IOException {
      maybeFail();
      return store.liveServers();
    }

    @Override
    public void register(String server) throws IOException {
      maybeFail();
      store.register(server);
    }

    @Override
    public void unregister(String server) throws IOException {
      maybeFail();
      store.unregister(server);
    }

    @Override
    public void publishFlushed(String server, Flushed flushed) throws IOException {
      maybeFail();
      store.publishFlushed(server, flushed);
    }

    @Override
    public Map<String, Flushed> flushed() throws IOException {
      maybeFail();
      return store.flushed();
    }

    @Override
    public void publishClaim(String server, Map<String, Long> claim) throws IOException {
      maybeFail();
      store.publishClaim(server, claim);
    }

    @Override
    public Map<String, Map<String, Long>> claims() throws IOException {
      maybeFail();
      return store.claims();
    }
  }
}
