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

/**
 * One deterministic schedule of the Key Grouping protocol: a seeded random source, a virtual clock and a priority
 * queue of events drive several nodes and clients that create and delete overlapping groups, over a network that
 * drops, duplicates, delays (so reorders) and partitions, while nodes crash and restart and keys move.
 *
 * <p>Safety is checked after every event. After the fault phase the network heals, every node restarts, clients
 * finish what they started, and the run must reach a state with no group and no key left yielded.
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
  private static final long CLIENT_TIMEOUT = 3_000;
  private static final long SETTLE_MILLIS = 120_000;
  private static final long MAX_EVENTS = 3_000_000;
  private static final int TRACE_LENGTH = Integer.getInteger("gstore.sim.trace", 300);

  private final long seed;
  private final Random random;
  private final Shape shape;
  private final SimCluster cluster;
  private final List<Key> keys = new ArrayList<>();
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
    this.seed = seed;
    this.random = new Random(seed);
    this.shape = Shape.random(random);
    List<NodeId> nodes = new ArrayList<>();
    for (int i = 1; i <= shape.nodes(); i++) {
      nodes.add(new NodeId("n" + i));
    }
    this.cluster = new SimCluster(CONFIG, followers, nodes);
    for (int i = 0; i < shape.keys(); i++) {
      Key k = Key.of("t", String.format("k%02d", i));
      keys.add(k);
      cluster.place(k, nodes.get(random.nextInt(nodes.size())));
    }
    nodes.forEach(n -> cluster.start(n, 0));
    for (int i = 1; i <= shape.clients(); i++) {
      SimClient c = new SimClient("c" + i);
      clients.add(c);
      at(random.nextInt(50), c.name + " starts", c::next);
    }
    scheduleFault("crash", shape.crashPerSecond(), this::crashSomeNode);
    scheduleFault("move", shape.movePerSecond(), this::moveSomeKey);
    scheduleFault("partition", shape.partitionPerSecond(), this::cutSomeLink);
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
      violations.addAll(Invariants.safety(cluster));
      clients.forEach(SimClient::checkHeld);
      if (!violations.isEmpty()) {
        return result();
      }
      if (!faulty && settled()) {
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
    return clients.stream().allMatch(c -> c.state == ClientState.DONE)
        && cluster.durable.liveGroups() == 0 && cluster.durable.owners.isEmpty();
  }

  private List<String> unfinishedClients() {
    return clients.stream().filter(c -> c.state != ClientState.DONE).map(c -> c.name + ":" + c.state).toList();
  }

  // ---- scheduling and tracing

  /** Schedules {@code action}; {@code what} describes it in the trace, rendered only if a run fails. */
  private void at(long time, Supplier<String> what, Runnable action) {
    queue.add(new Event(Math.max(time, now), sequence++, what, action));
  }

  private void at(long time, String what, Runnable action) {
    at(time, () -> what, action);
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

  private void violation(String what) {
    violations.add(what);
  }

  // ---- nodes and the network

  /**
   * Persists a node's step, then sends its datagrams and replies. The step's deferred changes are written up to
   * 200 ms later (after other steps' changes, or before), unless the node crashes first. Early datagrams leave
   * before the write (unless the step reserves uids), and while faults run the node may crash during the write,
   * more often when early datagrams left: that is the window they open.
   */
  private void output(NodeId node, Step step) {
    boolean early = !step.early().isEmpty() && !step.reservesUids();
    if (early) {
      count("early datagrams", step.early().size());
      step.early().forEach(this::send);
    }
    if (faulty && !step.changes().isEmpty() && random.nextDouble() < (early ? 0.1 : 0.01)) {
      record("CRASH " + node + " while writing " + step.changes().size() + " change(s)");
      count("crashes while writing", 1);
      cluster.crashWhileWriting(node, step, random);
      crashed(node);
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
    cluster.crash(n);
    crashed(n);
  }

  private void crashed(NodeId n) {
    wakeups.remove(n);
    at(now + 50 + random.nextInt(2_000), "restart " + n, () -> restart(n));
  }

  private void restart(NodeId n) {
    if (cluster.isUp(n)) {
      return;
    }
    cluster.start(n, now);
    scheduleWakeup(n);
  }

  private void moveSomeKey() {
    Key k = pick(keys);
    List<NodeId> others = new ArrayList<>(cluster.nodes());
    others.remove(cluster.hostOf.get(k));
    NodeId from = cluster.hostOf.get(k);
    NodeId to = pick(others);
    record("MOVE " + k + " " + from + " -> " + to);
    count("key moves", 1);
    output(from, cluster.move(k, to, now));
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

  private <T> T pick(List<T> list) {
    return list.get(random.nextInt(list.size()));
  }

  // ---- clients

  private enum ClientState { IDLE, CREATING, HOLDING, DELETING, DONE }

  private SimClient clientOf(String requestId) {
    String name = requestId.substring(0, requestId.indexOf('-'));
    return clients.stream().filter(c -> c.name.equals(name)).findFirst().orElseThrow();
  }

  /**
   * A client that repeatedly forms a group over random keys, holds it, and deletes it; sometimes it deletes while
   * creation is still running. Requests go to the leader key's current host and are retried, with the same
   * request id, on timeout or NOT_LEADER, like the HBase client retries an endpoint call.
   */
  private final class SimClient {
    final String name;
    ClientState state = ClientState.IDLE;
    boolean stopping;
    int cycle;
    int requests;
    ClientRequest pending;
    long lastDelivery;
    /** The group this client was told was CREATED, until it asks to delete it. */
    GroupRecord held;

    SimClient(String name) {
      this.name = name;
    }

    void next() {
      if (stopping) {
        state = ClientState.DONE;
        return;
      }
      cycle++;
      List<Key> shuffled = new ArrayList<>(keys);
      java.util.Collections.shuffle(shuffled, random);
      int size = 1 + random.nextInt(Math.min(shape.maxMembers(), keys.size()));
      Set<Key> members = new HashSet<>(shuffled.subList(0, size));
      Key leader = pick(new ArrayList<>(new java.util.TreeSet<>(members)));
      CreateMode mode = random.nextBoolean() ? CreateMode.ATOMIC : CreateMode.BEST_EFFORT;
      GroupId id = new GroupId(name + "-g" + cycle, leader);
      state = ClientState.CREATING;
      ClientRequest create = new ClientRequest.Create(name + "-r" + (++requests), id, members, mode);
      issue(create);
      if (random.nextDouble() < 0.15) {
        at(now + random.nextInt(60), name + " deletes during create", () -> {
          if (pending == create) {
            delete(id);
          }
        });
      }
    }

    /**
     * What CREATED promised holds until the client deletes the group, whatever crashed since: the group lives in
     * durable state (a restart resumes it), every member it reported joined is durably fenced to it, and the group
     * is active with exactly those members (while a restarted leader re-forms it, it may be CREATING).
     */
    void checkHeld() {
      if (held == null) {
        return;
      }
      GroupRecord g = cluster.durable.groups.get(held.id());
      if (g == null || !g.group().equals(held.group())
          || g.phase() != GroupPhase.CREATING && g.phase() != GroupPhase.ACTIVE) {
        violation(name + " holds " + held.group() + " but its durable record is " + g);
      } else if (g.phase() == GroupPhase.ACTIVE && !g.members(MemberState.Status.JOINED)
          .equals(held.members(MemberState.Status.JOINED))) {
        violation(name + " was told " + held + " but the group is active as " + g);
      }
      for (Key k : held.members(MemberState.Status.JOINED)) {
        OwnerRecord o = cluster.durable.owners.get(k);
        if (o == null || !o.group().equals(held.group())) {
          violation(name + " holds " + held.group() + " with " + k + " joined, but its durable owner is " + o);
        }
      }
    }

    void stop() {
      stopping = true;
      if (state == ClientState.IDLE) {
        state = ClientState.DONE;
      }
    }

    void delete(GroupId id) {
      held = null;
      state = ClientState.DELETING;
      issue(new ClientRequest.Delete(name + "-r" + (++requests), id));
    }

    void issue(ClientRequest request) {
      pending = request;
      send(request);
    }

    /** Sends to the leader key's current host; requests of one client arrive in the order sent. */
    void send(ClientRequest request) {
      NodeId host = cluster.hostOf.get(request.group().leader());
      lastDelivery = Math.max(now + 1 + random.nextInt(5), lastDelivery);
      at(lastDelivery, () -> name + " -> " + host + " " + Describe.request(request), () -> {
        ProtocolNode engine = cluster.engine(host);
        if (engine != null) {
          output(host, engine.handle(request, now));
        }
      });
      at(now + CLIENT_TIMEOUT, () -> name + " timeout " + request.requestId(), () -> {
        if (pending == request) {
          send(request);
        }
      });
    }

    void onReply(Reply r) {
      if (pending == null || !pending.requestId().equals(r.requestId())) {
        return; // an answer to a request this client no longer waits for
      }
      switch (r.outcome()) {
        case NOT_LEADER -> {
          ClientRequest again = pending;
          at(now + 10, name + " retries " + again.requestId(), () -> {
            if (pending == again) {
              send(again);
            }
          });
        }
        case CREATED -> {
          GroupId id = pending.group();
          held = ((Reply.Create) r).group();
          pending = null;
          state = ClientState.HOLDING;
          at(now + random.nextInt(500), name + " deletes " + id, () -> delete(id));
        }
        case FAILED -> finished();
        case DELETED, NOT_FOUND -> finished();
        case EXISTS, INVALID -> violation(name + " got " + r + " for " + pending);
      }
    }

    private void finished() {
      pending = null;
      state = ClientState.IDLE;
      at(now + random.nextInt(100), name + " next", this::next);
    }
  }
}
