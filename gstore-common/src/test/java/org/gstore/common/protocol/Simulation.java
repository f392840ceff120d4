package org.gstore.common.protocol;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import org.gstore.common.protocol.log.Checkpoint;

/**
 * One deterministic schedule of the Key Grouping protocol: a seeded random source, a virtual clock and a priority
 * queue of events drive several nodes and clients that create and delete overlapping groups, over a network that
 * drops, duplicates, delays (so reorders) and partitions, while nodes crash and restart and keys move.
 *
 * <p>Safety is checked after every event. After the fault phase the network heals, every node restarts, clients
 * finish what they started, and the run must reach a state with no group and no key left yielded.
 *
 * <p>When protocol state is logged ({@link SimCluster.Durability#LOG}), nodes also checkpoint their logs now and
 * then, partly when a write fails; a crashed node's log is replayed by a recovery that may itself crash part way,
 * before the node restarts or any node opens its keys; what a dead node's checkpointer had in flight may land late;
 * and a move flushes the old host's log before the new host loads, with a crash possible at each point. Safety is
 * checked against the durable state (tables plus logs), every load must read exactly the durable state of what it
 * loads, and at the end the tables must equal it.
 */
final class Simulation {
  /** Shape of a schedule; {@link #random} draws one from the seed so runs cover many shapes. */
  record Shape(int nodes, int keys, int clients, int maxMembers, double drop, double duplicate, long maxDelay,
      double crashPerSecond, double movePerSecond, double partitionPerSecond, long faultMillis) {
    static Shape random(Random r) {
      return new Shape(2 + r.nextInt(4), 6 + r.nextInt(20), 2 + r.nextInt(6), 2 + r.nextInt(6),
          r.nextDouble() * 0.3, r.nextDouble() * 0.2, 1 + r.nextInt(80),
          r.nextDouble() * 0.6, r.nextDouble() * 3, r.nextDouble() * 0.5, 2_000 + r.nextInt(8_000));
    }
  }

  /** How a run ended; {@code counts} says what happened in it (replies by outcome, faults injected, ...). */
  record Result(long seed, List<String> violations, List<OwnerRecord> ghosts, long events, List<String> trace,
      Map<String, Long> counts) {
    boolean ok() {
      return violations.isEmpty() && ghosts.isEmpty();
    }
  }

  private static final ProtocolConfig CONFIG = new ProtocolConfig(20, 1_000, 64, 16, 10_000);
  static final long CLIENT_TIMEOUT = 3_000;
  private static final long SETTLE_MILLIS = 120_000;
  private static final long MAX_EVENTS = 3_000_000;
  private static final int TRACE_LENGTH = Integer.getInteger("gstore.sim.trace", 300);

  private final long seed;
  final Random random;
  final Shape shape;
  final SimCluster cluster;
  private final boolean logged;
  final List<Key> keys = new ArrayList<>();
  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  private final Map<NodeId, Long> wakeups = new HashMap<>();
  private final Set<Set<NodeId>> cutLinks = new HashSet<>();
  private final List<SimClient> clients = new ArrayList<>();
  private final Deque<Supplier<String>> trace = new ArrayDeque<>();
  private final List<String> violations = new ArrayList<>();
  private final Map<String, Long> counts = new java.util.TreeMap<>();
  private long now;
  private long sequence;
  private long events;
  private boolean faulty = true;

  private record Event(long time, long seq, Supplier<String> what, Runnable action) implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      return time != o.time ? Long.compare(time, o.time) : Long.compare(seq, o.seq);
    }
  }

  Simulation(long seed, ProtocolNode.FollowerFactory followers) {
    this(seed, followers, SimCluster.Durability.TABLES, SimCluster.Defect.NONE);
  }

  Simulation(long seed, ProtocolNode.FollowerFactory followers, SimCluster.Durability durability,
      SimCluster.Defect defect) {
    this.seed = seed;
    this.random = new Random(seed);
    this.shape = Shape.random(random);
    List<NodeId> nodes = new ArrayList<>();
    for (int i = 1; i <= shape.nodes(); i++) {
      nodes.add(new NodeId("n" + i));
    }
    this.cluster = new SimCluster(CONFIG, followers, nodes, durability, defect, () -> now,
        new Random(seed * 31 + 7));
    this.logged = cluster.logged();
    for (int i = 0; i < shape.keys(); i++) {
      Key k = Key.of("t", String.format("k%02d", i));
      keys.add(k);
      cluster.place(k, nodes.get(random.nextInt(nodes.size())));
    }
    nodes.forEach(n -> cluster.start(n, 0));
    for (int i = 1; i <= shape.clients(); i++) {
      SimClient c = new SimClient(this, "c" + i);
      clients.add(c);
      at(random.nextInt(50), c.name + " starts", c::next);
    }
    scheduleFault("crash", shape.crashPerSecond(), this::crashSomeNode);
    scheduleFault("move", shape.movePerSecond(), this::moveSomeKey);
    scheduleFault("partition", shape.partitionPerSecond(), this::cutSomeLink);
    if (logged) {
      nodes.forEach(n -> at(random.nextInt(200), n + " checkpoints", () -> checkpoint(n)));
    }
    at(shape.faultMillis(), "faults stop, network heals", this::heal);
  }

  Result run() {
    long deadline = shape.faultMillis() + SETTLE_MILLIS;
    while (!queue.isEmpty() && events < MAX_EVENTS) {
      Event e = queue.poll();
      if (e.time > deadline) {
        break;
      }
      now = e.time;
      events++;
      record(e.what);
      e.action.run();
      violations.addAll(cluster.violations);
      cluster.violations.clear();
      violations.addAll(Invariants.safety(cluster));
      clients.forEach(SimClient::checkHeld);
      if (!violations.isEmpty()) {
        return result();
      }
      if (!faulty && settled()) {
        violations.addAll(cluster.tablesMatchDurableState());
        return result();
      }
    }
    if (!settled()) {
      violations.add("did not settle within " + SETTLE_MILLIS + " ms after faults stopped ("
          + events + " events): " + unfinishedClients() + "\n" + Invariants.describe(cluster));
    }
    return result();
  }

  private Result result() {
    count("events", events);
    List<OwnerRecord> ghosts = Invariants.ghosts(cluster);
    boolean failed = !violations.isEmpty() || !ghosts.isEmpty();
    List<String> rendered = failed ? trace.stream().map(Supplier::get).toList() : List.of();
    return new Result(seed, List.copyOf(violations), ghosts, events, rendered,
        Map.copyOf(counts));
  }

  private boolean settled() {
    return clients.stream().allMatch(c -> c.state == SimClient.State.DONE)
        && cluster.durable.liveGroups() == 0 && cluster.durable.owners.isEmpty()
        && cluster.nodes().stream().allMatch(cluster::isUp);
  }

  private List<String> unfinishedClients() {
    return clients.stream().filter(c -> c.state != SimClient.State.DONE).map(c -> c.name + ":" + c.state).toList();
  }

  // ---- scheduling and tracing

  /** Schedules {@code action}; {@code what} describes it in the trace, rendered only if a run fails. */
  void at(long time, Supplier<String> what, Runnable action) {
    queue.add(new Event(Math.max(time, now), sequence++, what, action));
  }

  void at(long time, String what, Runnable action) {
    at(time, () -> what, action);
  }

  long now() {
    return now;
  }

  private void record(Supplier<String> what) {
    if (trace.size() == TRACE_LENGTH) {
      trace.removeFirst();
    }
    long at = now;
    trace.addLast(() -> at + "ms " + what.get());
  }

  private void record(String what) {
    record(() -> what);
  }

  private void count(String what, long n) {
    counts.merge(what, n, Long::sum);
  }

  void violation(String what) {
    violations.add(what);
  }

  // ---- nodes and the network

  /**
   * Persists a node's step, then sends its datagrams and replies. The step's deferred changes are written up to
   * 200 ms later (after other steps' changes, or before), unless the node crashes first. Early datagrams leave
   * before the write (unless the step reserves uids), and while faults run the node may crash during the write,
   * more often when early datagrams left: that is the window they open.
   */
  void output(NodeId node, Step step) {
    boolean early = !step.early().isEmpty() && !step.reservesUids();
    if (early) {
      count("early datagrams", step.early().size());
      step.early().forEach(this::send);
    }
    if (faulty && !step.changes().isEmpty() && random.nextDouble() < (early ? 0.1 : 0.01)) {
      record("CRASH " + node + " while writing " + step.changes().size() + " change(s)");
      count("crashes while writing", 1);
      crashed(node, cluster.crashWhileWriting(node, step, random));
      return;
    }
    cluster.persist(node, step);
    if (!step.deferred().isEmpty()) {
      count("deferred changes", step.deferred().size());
      at(now + random.nextInt(200), () -> node + " writes deferred changes", () -> {
        if (cluster.isUp(node)) {
          cluster.writeDeferred(node);
        }
      });
    }
    violations.addAll(Invariants.consistency(cluster, node));
    for (Datagram d : early ? step.datagrams() : step.withoutEarly().datagrams()) {
      send(d);
    }
    for (Reply r : step.replies()) {
      count("reply " + r.outcome(), 1);
      SimClient c = clientOf(r.requestId());
      at(now + 1 + random.nextInt(5), () -> "reply " + r.outcome() + " to " + r.requestId(), () -> c.onReply(r));
    }
    scheduleWakeup(node);
  }

  private void send(Datagram d) {
    boolean cut = !d.from().equals(d.to()) && cutLinks.contains(Set.of(d.from(), d.to()));
    if (faulty && (random.nextDouble() < shape.drop() || cut)) {
      record(() -> "lost " + Describe.datagram(d));
      count("datagrams lost", 1);
      return;
    }
    int copies = faulty && random.nextDouble() < shape.duplicate() ? 2 : 1;
    count("datagrams sent", 1);
    count("datagrams duplicated", copies - 1);
    for (int i = 0; i < copies; i++) {
      long delay = faulty ? 1 + random.nextInt((int) shape.maxDelay()) : 1 + random.nextInt(3);
      at(now + delay, () -> "deliver " + Describe.datagram(d), () -> deliver(d));
    }
  }

  private void deliver(Datagram d) {
    ProtocolNode engine = cluster.engine(d.to());
    if (engine != null) {
      output(d.to(), engine.receive(d, now));
    }
  }

  private void scheduleWakeup(NodeId n) {
    ProtocolNode engine = cluster.engine(n);
    if (engine == null) {
      return;
    }
    long next = engine.nextWakeup();
    Long scheduled = wakeups.get(n);
    if (next != Long.MAX_VALUE && (scheduled == null || next < scheduled)) {
      wakeups.put(n, next);
      at(next, () -> "tick " + n, () -> tick(n, next));
    }
  }

  private void tick(NodeId n, long due) {
    if (wakeups.get(n) != null && wakeups.get(n) == due) {
      wakeups.remove(n);
    }
    ProtocolNode engine = cluster.engine(n);
    if (engine != null) {
      output(n, engine.tick(now));
    }
  }

  // ---- faults

  /** Schedules a fault of {@code kind} now and then (a Poisson process of {@code perSecond}) while faulty. */
  private void scheduleFault(String kind, double perSecond, Runnable fault) {
    if (perSecond <= 0) {
      return;
    }
    long gap = 1 + (long) (-Math.log(1 - random.nextDouble()) / perSecond * 1000);
    at(now + gap, kind, () -> {
      if (faulty) {
        fault.run();
        scheduleFault(kind, perSecond, fault);
      }
    });
  }

  private void crashSomeNode() {
    NodeId n = pick(cluster.nodes());
    if (!cluster.isUp(n)) {
      return;
    }
    record("CRASH " + n);
    count("crashes", 1);
    crashed(n, cluster.crash(n));
  }

  /**
   * After a crash: a restart, and when state is logged a recovery of the dead log and, sometimes, a late landing of
   * what the dead node's checkpointer had in flight.
   */
  private void crashed(NodeId n, Checkpoint inFlight) {
    wakeups.remove(n);
    at(now + 50 + random.nextInt(2_000), "restart " + n, () -> restart(n));
    if (logged) {
      at(now + 20 + random.nextInt(500), "recover " + n, () -> recover(n));
      if (!inFlight.changes().isEmpty() && random.nextDouble() < 0.3) {
        count("late writes of dead checkpointers", 1);
        at(now + random.nextInt(3_000), () -> "late checkpoint write of dead " + n + ": " + inFlight.changes(),
            () -> cluster.landLate(inFlight, random));
      }
    }
  }

  private void restart(NodeId n) {
    if (cluster.isUp(n)) {
      return;
    }
    if (!cluster.start(n, now)) {
      at(now + 100, n + " waits for its log's recovery to restart", () -> restart(n));
      return;
    }
    scheduleWakeup(n);
  }

  /** A recovery of {@code n}'s dead logs; while faults run, the recoverer may crash part way and run again. */
  private void recover(NodeId n) {
    if (!cluster.awaitsRecovery(n)) {
      return;
    }
    boolean tear = faulty && random.nextDouble() < 0.2;
    if (cluster.recover(n, random, tear, now)) {
      count("recoveries", 1);
      record("RECOVERED " + n);
      cluster.nodes().forEach(this::scheduleWakeup);
    } else {
      count("recoveries torn", 1);
      record("RECOVERER CRASHED replaying " + n);
      at(now + 20 + random.nextInt(300), "recover " + n + " again", () -> recover(n));
    }
  }

  /** {@code n}'s checkpointer runs now and then; while faults run, a write may fail part way, or crash the node. */
  private void checkpoint(NodeId n) {
    boolean tear = faulty && random.nextDouble() < 0.2;
    if (cluster.checkpoint(n, random, tear)) {
      count("checkpoints torn", 1);
      if (random.nextDouble() < 0.2) {
        record("CRASH " + n + " during a checkpoint");
        count("crashes during checkpoints", 1);
        crashed(n, cluster.crash(n));
      }
    }
    at(now + 1 + random.nextInt(150), () -> n + " checkpoints", () -> checkpoint(n));
  }

  private void moveSomeKey() {
    Key k = pick(keys);
    if (cluster.inTransit(k)) {
      return;
    }
    List<NodeId> others = new ArrayList<>(cluster.nodes());
    others.remove(cluster.hostOf.get(k));
    NodeId from = cluster.hostOf.get(k);
    NodeId to = pick(others);
    record("MOVE " + k + " " + from + " -> " + to);
    count("key moves", 1);
    if (!logged) {
      output(from, cluster.move(k, to, now));
      scheduleWakeup(to);
      return;
    }
    output(from, cluster.unloadForMove(k, to));
    if (cluster.isUp(from) && random.nextDouble() < 0.1) {
      record("CRASH " + from + " closing " + k + ", before its flush");
      count("crashes closing a region", 1);
      crashed(from, cluster.crash(from));
    } else if (cluster.isUp(from) && random.nextDouble() < 0.05) {
      cluster.checkpoint(from, random, true);
      record("CRASH " + from + " closing " + k + ", during its flush");
      count("crashes closing a region", 1);
      crashed(from, cluster.crash(from));
    }
    cluster.closeFlush(from);
    cluster.completeMove(k, now);
    if (cluster.isUp(to) && random.nextDouble() < 0.05) {
      record("CRASH " + to + " opening " + k);
      count("crashes opening a region", 1);
      crashed(to, cluster.crash(to));
    }
    scheduleWakeup(to);
  }

  private void cutSomeLink() {
    NodeId a = pick(cluster.nodes());
    NodeId b = pick(cluster.nodes());
    if (a.equals(b)) {
      return;
    }
    Set<NodeId> link = Set.of(a, b);
    record("PARTITION " + a + " | " + b);
    count("partitions", 1);
    cutLinks.add(link);
    at(now + 100 + random.nextInt(3_000), "heal " + a + " | " + b, () -> cutLinks.remove(link));
  }

  private void heal() {
    faulty = false;
    cutLinks.clear();
    for (NodeId n : cluster.nodes()) {
      restart(n);
    }
    clients.forEach(SimClient::stop);
  }

  <T> T pick(List<T> list) {
    return list.get(random.nextInt(list.size()));
  }

  // ---- clients

  private SimClient clientOf(String requestId) {
    String name = requestId.substring(0, requestId.indexOf('-'));
    return clients.stream().filter(c -> c.name.equals(name)).findFirst().orElseThrow();
  }
}
