package org.gstore.common.protocol;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.gstore.common.protocol.log.Checkpoint;
import org.gstore.common.protocol.log.LoggedChange;

/**
 * Nodes, the placement of keys on them, and their durable state: the world the protocol runs in, without a network.
 * Crashing a node drops its memory; starting it rebuilds its engine from the state tables. Moving a key unloads its
 * state at the old host and loads it at the new one, like a region move; other nodes' cached locations go stale.
 *
 * <p>Protocol state becomes durable one of two ways ({@link Durability}). Written to the tables, it is durable once
 * written. Logged, it is durable once its record is in the node's log ({@link SimLog}), and reaches the tables by
 * the node's checkpoints, by the flush of a closing region, or, after a crash, by a recovery that replays the dead
 * log. Then {@link #durable} (what the protocol made durable: every invariant is checked against it) and
 * {@link #tables} (what a loading node reads) differ, and every load is checked to read exactly the durable state
 * of the keys it loads.
 */
final class SimCluster {
  /** Where a protocol step's changes become durable. */
  enum Durability { TABLES, LOG }

  /** A defect planted in how logged state reaches the tables; the simulation must catch each one. */
  enum Defect {
    NONE,
    /** A node loads keys (restarts, opens a moved key) before the dead log that wrote them is replayed. */
    LOAD_BEFORE_REPLAY,
    /** A closing region does not flush its host's pending records before the key's next host loads it. */
    CLOSE_WITHOUT_FLUSH,
    /** Cells carry no versions: the last write to land wins, however old. */
    UNVERSIONED_CELLS,
    /** A checkpoint that was only partly written moves the marker past it all the same. */
    MARKER_PAST_UNWRITTEN,
    /** A loading node does not observe the versions of the rows it loads, so its clock may write below them. */
    UNOBSERVED_VERSIONS
  }

  private final ProtocolConfig config;
  private final ProtocolNode.FollowerFactory followers;
  private final Durability durability;
  private final Defect defect;
  private final LongSupplier clock;
  /** What the protocol made durable: the tables plus every log not yet checkpointed or replayed. */
  final DurableState durable = new DurableState();
  /** What a loading node reads: {@link #durable} itself unless state is logged. */
  final DurableState tables;
  final Map<Key, NodeId> hostOf = new TreeMap<>();
  /** Keys being moved, unavailable until their old host's records are in the tables: the old host, by key. */
  private final Map<Key, NodeId> inTransit = new TreeMap<>();
  private final Map<NodeId, ProtocolNode> engines = new TreeMap<>();
  private final Map<NodeId, Map<Key, NodeId>> locationCaches = new HashMap<>();
  /** Each node's deferred changes its writer has not written yet, by target. */
  private final Map<NodeId, Map<Object, StateChange>> unwritten = new HashMap<>();
  private final Map<NodeId, SimLog> logs = new HashMap<>();
  /** Each node's wall clock minus the simulation's: versions must not depend on clocks agreeing. */
  private final Map<NodeId, Long> skew = new HashMap<>();
  /** Loads that did not read exactly the durable state; the simulation collects them. */
  final List<String> violations = new ArrayList<>();

  /** A cluster whose nodes write protocol state straight to the tables. */
  SimCluster(ProtocolConfig config, ProtocolNode.FollowerFactory followers, List<NodeId> nodes) {
    this(config, followers, nodes, Durability.TABLES, Defect.NONE, () -> 0, new Random(0));
  }

  SimCluster(ProtocolConfig config, ProtocolNode.FollowerFactory followers, List<NodeId> nodes,
      Durability durability, Defect defect, LongSupplier clock, Random random) {
    this.config = config;
    this.followers = followers;
    this.durability = durability;
    this.defect = defect;
    this.clock = clock;
    this.tables = durability == Durability.TABLES ? durable : new DurableState();
    for (NodeId n : nodes) {
      engines.put(n, null);
      locationCaches.put(n, new HashMap<>());
      unwritten.put(n, new LinkedHashMap<>());
      logs.put(n, new SimLog());
      skew.put(n, (long) random.nextInt(601) - 300);
    }
  }

  List<NodeId> nodes() {
    return new ArrayList<>(engines.keySet());
  }

  boolean logged() {
    return durability == Durability.LOG;
  }

  /** The node's engine, or {@code null} while it is down. */
  ProtocolNode engine(NodeId n) {
    return engines.get(n);
  }

  boolean isUp(NodeId n) {
    return engines.get(n) != null;
  }

  /** Whether {@code n} serves {@code k}: it is the key's host and the key is not in transit. */
  boolean hosts(NodeId n, Key k) {
    return n.equals(hostOf.get(k)) && !inTransit.containsKey(k);
  }

  boolean inTransit(Key k) {
    return inTransit.containsKey(k);
  }

  void place(Key k, NodeId n) {
    hostOf.put(k, n);
  }

  /**
   * Starts (or restarts) a node from the tables: it hosts the same keys, as a reopened region server would. A node
   * whose dead log is not replayed yet does not start (false): its earlier life's state may not be in the tables.
   */
  boolean start(NodeId n, long now) {
    if (waitsForReplay(n)) {
      return false;
    }
    observeAndCheck(n, n);
    ProtocolNode engine = new ProtocolNode(n, config, k -> hosts(n, k), locator(n),
        tables.reservedUids.getOrDefault(n, 0L), followers);
    engines.put(n, engine);
    load(n, k -> true, now);
    return true;
  }

  private boolean waitsForReplay(NodeId n) {
    return logs.get(n).awaitsRecovery() && defect != Defect.LOAD_BEFORE_REPLAY;
  }

  /** {@code n} loads, from the tables, the state of the keys it serves that {@code scope} accepts. */
  private void load(NodeId n, Predicate<Key> scope, long now) {
    Predicate<Key> loads = k -> hosts(n, k) && scope.test(k);
    for (Object row : tables.rows(durable)) {
      Key key = row instanceof GroupId g ? g.leader() : row instanceof Key k ? k : null;
      if (key != null && loads.test(key)) {
        observeAndCheck(n, row);
      }
    }
    engines.get(n).load(
        tables.groups.values().stream().filter(g -> loads.test(g.group().leader())).toList(),
        tables.owners.values().stream().filter(o -> loads.test(o.key())).toList(),
        now);
  }

  /** {@code n} reads row {@code row}: its clock observes the row's version, which must be the durable one. */
  private void observeAndCheck(NodeId n, Object row) {
    if (defect != Defect.UNOBSERVED_VERSIONS) {
      logs.get(n).observe(tables.version(row));
    }
    String difference = tables.difference(durable, row);
    if (difference != null) {
      violations.add(n + " loaded state that is not the durable state: " + difference + " (tables | durable)");
    }
  }

  /**
   * The node loses its memory and the deferred changes it had not written; its durable state stays (a logged node's
   * records wait for a recovery). Returns what its checkpointer may have had in flight, which may land late.
   */
  Checkpoint crash(NodeId n) {
    engines.put(n, null);
    unwritten.get(n).clear();
    locationCaches.get(n).clear();
    return logged() ? logs.get(n).crash() : Checkpoint.of(List.of());
  }

  /**
   * Moves {@code k} to {@code to}, first step: the old host stops serving it and its writer writes its deferred
   * changes, as a closing region waits for; returns the replies the old host owes its waiting clients. The key is
   * in transit until {@link #completeMove}.
   */
  Step unloadForMove(Key k, NodeId to) {
    NodeId from = hostOf.get(k);
    hostOf.put(k, to);
    inTransit.put(k, from);
    ProtocolNode old = engines.get(from);
    if (old == null) {
      return Step.NOTHING;
    }
    Step unloaded = old.unload(k::equals);
    writeDeferred(from);
    return unloaded;
  }

  /** The closing region's flush: every record its (live) host logged is checkpointed. */
  void closeFlush(NodeId from) {
    if (logged() && isUp(from) && defect != Defect.CLOSE_WITHOUT_FLUSH) {
      flush(from);
    }
  }

  /** The new host opens {@code k}, unless its old host's dead log awaits a recovery: then the recovery opens it. */
  void completeMove(Key k, long now) {
    NodeId from = inTransit.get(k);
    if (from == null || logged() && !isUp(from) && waitsForReplay(from)) {
      return;
    }
    inTransit.remove(k);
    NodeId to = hostOf.get(k);
    if (isUp(to)) {
      load(to, k::equals, now);
    }
  }

  /** A move at once, as the tables-only protocol makes it: unload, then load at {@code to}. */
  Step move(Key k, NodeId to, long now) {
    NodeId from = hostOf.get(k);
    Step unloaded = unloadForMove(k, to);
    closeFlush(from);
    completeMove(k, now);
    return unloaded;
  }

  /**
   * Makes {@code node}'s step durable as its writer would: the step's changes before its messages leave (each
   * replacing an unwritten deferred change to its target); the step's deferred changes wait for
   * {@link #writeDeferred} or a move of its keys, and a crash loses them. So a node's later changes to other
   * targets may be durable before its earlier deferred ones, as when the writer carries those to a later batch.
   */
  void persist(NodeId node, Step step) {
    Map<Object, StateChange> pending = unwritten.get(node);
    step.changes().forEach(c -> pending.remove(c.target()));
    write(node, step.changes());
    step.deferred().forEach(c -> pending.put(c.target(), c));
  }

  /** One write of {@code node}'s writer: to the tables, or as one record of its log. */
  private void write(NodeId node, List<StateChange> changes) {
    if (!logged()) {
      durable.apply(changes);
    } else if (!changes.isEmpty()) {
      SimLog log = logs.get(node);
      List<LoggedChange> stamped = log.stamp(changes, clock.getAsLong() + skew.get(node));
      for (LoggedChange c : stamped) {
        if (!c.supersedes(durable.version(c.target()))) {
          violations.add(node + " wrote " + c.change() + " at version " + c.version() + ", not above the row's "
              + durable.version(c.target()) + ": the write is lost");
        }
      }
      log.append(stamped);
      durable.apply(stamped, true);
    }
  }

  /**
   * The node crashes while writing {@code step}. To the tables: the phases of its changes before a random one are
   * durable, and a random subset of that one ({@link WriteOrder}). To its log: the record is durable or not, whole.
   * Nothing of the step leaves the node but its early datagrams. Returns what {@link #crash} does.
   */
  Checkpoint crashWhileWriting(NodeId node, Step step, Random random) {
    if (logged()) {
      if (random.nextBoolean()) {
        write(node, step.changes());
      }
      return crash(node);
    }
    List<List<StateChange>> phases = WriteOrder.phases(step.changes());
    int torn = random.nextInt(phases.size());
    for (int i = 0; i < torn; i++) {
      durable.apply(phases.get(i));
    }
    durable.apply(phases.get(torn).stream().filter(c -> random.nextBoolean()).toList());
    return crash(node);
  }

  /** The node's writer catches up with its deferred changes. */
  void writeDeferred(NodeId node) {
    write(node, List.copyOf(unwritten.get(node).values()));
    unwritten.get(node).clear();
  }

  /**
   * The node's checkpointer writes the checkpoint of a random run of its oldest pending records; when {@code tear},
   * only a random part of it lands (a failed batch, retried later). Returns whether it was torn.
   */
  boolean checkpoint(NodeId n, Random random, boolean tear) {
    SimLog log = logs.get(n);
    if (!logged() || !isUp(n) || log.pending() == 0) {
      return false;
    }
    Checkpoint c = log.next(1 + random.nextInt(log.pending()));
    if (tear) {
      tables.apply(someOf(c.changes(), random), versioned());
      if (defect == Defect.MARKER_PAST_UNWRITTEN) {
        log.written(c);
      }
      return true;
    }
    tables.apply(c.changes(), versioned());
    log.written(c);
    return false;
  }

  /**
   * A recovery replays {@code n}'s dead logs into the tables, then opens the keys whose move waited for it. When
   * {@code tear}, the recoverer crashes part way (false): a later one replays again.
   */
  boolean recover(NodeId n, Random random, boolean tear, long now) {
    SimLog log = logs.get(n);
    for (Checkpoint c : log.replay()) {
      if (tear) {
        tables.apply(someOf(c.changes(), random), versioned());
        return false;
      }
      tables.apply(c.changes(), versioned());
    }
    log.recovered();
    inTransit.entrySet().stream().filter(e -> e.getValue().equals(n)).map(Map.Entry::getKey).toList()
        .forEach(k -> completeMove(k, now));
    return true;
  }

  boolean awaitsRecovery(NodeId n) {
    return logs.get(n).awaitsRecovery();
  }

  /** A dead server's checkpoint write lands late: some of {@code inFlight}'s changes. */
  void landLate(Checkpoint inFlight, Random random) {
    tables.apply(someOf(inFlight.changes(), random), versioned());
  }

  /**
   * At the end, once every node is up and recovered: every pending record checkpointed, the tables must equal the
   * durable state.
   */
  List<String> tablesMatchDurableState() {
    List<String> v = new ArrayList<>();
    if (!logged()) {
      return v;
    }
    nodes().forEach(this::flush);
    for (Object row : tables.rows(durable)) {
      String difference = tables.difference(durable, row);
      if (difference != null) {
        v.add("at the end the tables differ from the durable state: " + difference);
      }
    }
    return v;
  }

  /** Checkpoints every record {@code n} logged, whole. */
  private void flush(NodeId n) {
    SimLog log = logs.get(n);
    while (log.pending() > 0) {
      Checkpoint c = log.next(Integer.MAX_VALUE);
      tables.apply(c.changes(), versioned());
      log.written(c);
    }
  }

  private boolean versioned() {
    return defect != Defect.UNVERSIONED_CELLS;
  }

  private static List<LoggedChange> someOf(List<LoggedChange> changes, Random random) {
    return changes.stream().filter(c -> random.nextBoolean()).toList();
  }

  /** Durable state as it will be once {@code node}'s deferred changes are written: what its memory must match. */
  DurableState intended(NodeId node) {
    if (unwritten.get(node).isEmpty()) {
      return durable;
    }
    DurableState d = durable.copy();
    d.apply(List.copyOf(unwritten.get(node).values()));
    return d;
  }

  private KeyLocator locator(NodeId n) {
    Map<Key, NodeId> cache = locationCaches.get(n);
    return new KeyLocator() {
      @Override
      public NodeId locate(Key key) {
        return cache.computeIfAbsent(key, hostOf::get);
      }

      @Override
      public void invalidate(Key key) {
        cache.remove(key);
      }
    };
  }
}
