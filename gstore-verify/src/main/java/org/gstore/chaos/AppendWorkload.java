package org.gstore.chaos;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.testing.GStoreTables;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupCreationException;
import org.gstore.client.GroupId;
import org.gstore.client.GroupNotFoundException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.history.CheckReport;
import org.gstore.history.HistoryFormatException;
import org.gstore.history.HistoryReader;
import org.gstore.history.HistoryWriter;
import org.gstore.history.ListAppendChecker;
import org.gstore.history.Op;

/**
 * The list-append workload, as strong as Jepsen's: keys are rows of a table of their own, each holding a list of
 * integers. Clients work in teams of two to four. A team's first client keeps forming small groups over random,
 * overlapping sets of keys (atomic or best-effort, with leases) and deleting them; while a group lives, every client
 * of the team looks it up ({@link GStoreClient#getGroup}) and runs transactions on it at once, so commits race at
 * the leader and some abort by conflict. A transaction reads some members and appends a unique integer to others,
 * recording the list it read before each append. Between groups, clients read keys with plain HBase {@code Get}s
 * (some of them keys whose group was just deleted: those reads are checked in real time) and append to keys with
 * plain single-row {@code checkAndMutate}s, half of them aimed at keys that groups hold, which G-Store must refuse.
 * A key is retired after {@value KeySlots#APPENDS_PER_KEY} appends (the next generation of its slot takes over), so
 * lists and the history's reads stay short however long the run. Each team's last client gives a commit only
 * {@value AppendClients#HASTY_DEADLINE_MS} ms and thinks before committing, so that faults leave outcomes unknown.
 *
 * <p>Every operation is recorded as it is invoked and as it completes ({@link HistoryWriter}), with the group it
 * ran in, and the history is checked at the end ({@link ListAppendChecker}). A client that gets no answer (the
 * outcome is unknown) records {@code info} and goes on as a new process, as Jepsen's clients do: the operation may
 * still take effect at any time.
 */
public final class AppendWorkload implements FaultTargets {
  private static final Duration LEASE = Duration.ofSeconds(20);
  /** How long a team's first client waits for the others to commit in its group before deleting it. */
  private static final long PEERS_WAIT_MS = 500;

  private final Connection connection;
  private final TableName table;
  private final int clientCount;
  private final long seed;
  private final Path historyFile;
  private final AtomicLong nextValue = new AtomicLong(1);
  private final AtomicLong nextProcess = new AtomicLong();
  private final AtomicLong nextGroup = new AtomicLong();
  private final KeySlots keys;
  /** Live groups (forming, serving, dissolving) by name, with their leader rows: what targeted faults aim at. */
  private final Map<String, byte[]> live = new ConcurrentHashMap<>();
  private final AtomicLong createsOk = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  private AppendClients clients;
  private HistoryWriter history;
  private PlainOperations plain;
  private GroupTransactions transactions;
  private volatile boolean stopping;
  /** A planted client bug, for tests: an append writes its value alone, over the list it did not read. */
  private boolean blindAppends;
  private Timeline timeline;

  public AppendWorkload(Connection connection, TableName table, int keys, int clients, long seed, Path historyFile) {
    this.connection = connection;
    this.table = table;
    this.keys = new KeySlots(keys);
    this.clientCount = clients;
    this.seed = seed;
    this.historyFile = historyFile;
  }

  /** Plants a client bug, for tests that show the check catches it: appends overwrite the list unread. */
  void plantBlindAppends() {
    blindAppends = true;
  }

  /** Where each committed transaction is counted, by second (null: nowhere). */
  void timeline(Timeline t) {
    this.timeline = t;
  }

  /** G-Store answered this client's call (see {@link Timeline#answered}). */
  private void answered() {
    if (timeline != null) {
      timeline.answered("append");
    }
  }

  @Override
  public TableName table() {
    return table;
  }

  @Override
  public byte[] leaderRow(Random random) {
    List<byte[]> rows = new ArrayList<>(live.values());
    return rows.isEmpty() ? null : rows.get(random.nextInt(rows.size()));
  }

  @Override
  public byte[] splitRow(Random random) {
    return KeySlots.first(random.nextInt(keys.size()));
  }

  /** Creates the table (split so that its keys spread over the servers) and starts the clients. */
  public void start() throws IOException {
    byte[][] splits = keys.splits(8);
    GStoreTables.ensureServed(connection, TableDescriptorBuilder.newBuilder(table)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(ListRow.CF)).build(), splits);
    history = new HistoryWriter(historyFile);
    plain = new PlainOperations(history, nextValue, keys::appendInvoked);
    transactions = new GroupTransactions(table, history, nextValue, keys::appendInvoked,
        blindAppends, timeline);
    clients = new AppendClients(connection);
    Random teams = new Random(seed);
    for (int c = 0; c < clientCount; ) {
      int size = Math.min(clientCount - c, 2 + teams.nextInt(3));
      if (clientCount - c - size == 1) {
        size = size == 4 ? 3 : size + 1; // no team of one
      }
      Team team = new Team();
      int peers = size - 1;
      for (int member = 0; member < size; member++, c++) {
        Random random = new Random(seed * 131 + c);
        GStoreClient own = member == size - 1 ? clients.hasty : clients.patient; // each team's last is hasty
        boolean first = member == 0;
        Runnable body = first ? () -> runFirst(team, peers, random) : () -> runPeer(team, own, random);
        Thread t = new Thread(body, "chaos-append-" + c);
        t.setDaemon(true); // a run that ends abruptly must not be kept alive by its clients
        threads.add(t);
        t.start();
      }
    }
  }

  /**
   * Stops the clients (each finishes what it is doing, deleting its group, within {@code wait} for them all; then
   * they are interrupted) and closes the history, whatever happens: a history cut short is still read whole.
   */
  public void stop(Duration wait) throws IOException, InterruptedException {
    stopping = true;
    try {
      long deadline = System.nanoTime() + wait.toNanos();
      for (Thread t : threads) {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      }
      threads.forEach(Thread::interrupt);
      for (Thread t : threads) {
        t.join(Duration.ofSeconds(30).toMillis());
      }
      clients.close();
    } finally {
      history.close(); // a client still running records nothing more
    }
  }

  /** Checks the history written; a history it cannot read is reported as the exception says. */
  public CheckReport check() throws IOException, HistoryFormatException {
    return ListAppendChecker.check(HistoryReader.read(historyFile), CheckReport.Consistency.STRICT_SERIALIZABLE);
  }

  public long transactionsOk() {
    return transactions.ok();
  }

  /** Transactions acknowledged to a client other than the one that created the group. */
  public long sharedTransactionsOk() {
    return transactions.sharedOk();
  }

  /** Transactions the leader refused because a row they read had changed. */
  public long conflicts() {
    return transactions.conflicts();
  }

  public long createsOk() {
    return createsOk.get();
  }

  public long plainAppendsOk() {
    return plain.appendsOk();
  }

  /** Plain appends G-Store refused because a group held the row. */
  public long plainAppendsRefused() {
    return plain.appendsRefused();
  }

  public Path historyFile() {
    return historyFile;
  }

  /** A group of the team, shared by its clients while it lives. */
  private record Shared(GroupId id, List<String> members, AtomicInteger peerAttempts) {}

  /** The clients forming and using one group at a time. */
  private static final class Team {
    volatile Shared current;
  }

  /** One step of a client's loop, run as {@code process}; returns the process to go on as. */
  private interface Step {
    long run(long process) throws IOException;
  }

  /** Runs a client's steps until the workload stops; an interrupt ends it, a history it cannot write fails it. */
  private void loop(Step step) {
    long process = nextProcess.getAndIncrement();
    try {
      while (!stopping && !Thread.currentThread().isInterrupted()) {
        process = step.run(process);
      }
    } catch (InterruptedIOException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("the history cannot be written", e);
    }
  }

  /** A team's first client: forms a group, shares it, uses it with the others, deletes it; plain work between. */
  private void runFirst(Team team, int peers, Random random) {
    loop(process -> {
      if (random.nextInt(3) == 0) {
        plainWork(process, random, null);
      }
      return stopping ? process : group(team, peers, process, random);
    });
  }

  /** Another client of a team: looks up each group the team shares and commits in it while it lives. */
  private void runPeer(Team team, GStoreClient own, Random random) {
    Shared[] done = new Shared[1]; // the last group this client took part in
    loop(process -> {
      Shared shared = team.current;
      if (shared == null || shared == done[0]) {
        if (random.nextInt(4) == 0) {
          plainWork(process, random, null);
        } else {
          sleep(10);
        }
        return process;
      }
      done[0] = shared;
      KeyGroup group;
      try {
        group = own.getGroup(shared.id());
      } catch (IOException | RuntimeException e) {
        return process; // deleted already, or a fault: the next one
      }
      long now = process;
      for (int t = 0, n = 1 + random.nextInt(4); t < n && team.current == shared && !stopping; t++) {
        shared.peerAttempts().incrementAndGet();
        if (!transactions.run(group, shared.members(), now, random, own == clients.hasty)) {
          now = nextProcess.getAndIncrement();
        }
      }
      return now;
    });
  }

  /** One group's life: create, share, transactions, delete. Returns the process to go on as. */
  private long group(Team team, int peers, long process, Random random) throws IOException {
    Set<Integer> picked = new LinkedHashSet<>();
    for (int i = 0, n = 2 + random.nextInt(4); i < n; i++) {
      picked.add(random.nextInt(keys.size()));
    }
    List<String> rows = new ArrayList<>();
    picked.forEach(slot -> rows.add(keys.current(slot)));
    String name = "append-" + nextGroup.getAndIncrement();
    byte[] leader = Bytes.toBytes(rows.get(0));
    GroupSpec.Builder builder = GroupSpec.builder().id(name).leader(table, leader).lease(LEASE);
    rows.forEach(r -> builder.member(table, Bytes.toBytes(r)));
    if (random.nextBoolean()) {
      builder.bestEffort();
    }
    live.put(name, leader);
    try {
      return group(team, peers, process, random, name, builder.build());
    } finally {
      live.remove(name);
    }
  }

  private long group(Team team, int peers, long process, Random random, String name, GroupSpec spec)
      throws IOException {
    history.record(process, Op.Type.INVOKE, "create", List.of(), name);
    KeyGroup group;
    try {
      group = clients.patient.createGroup(spec);
    } catch (GroupCreationException e) {
      // refused rows: the leader's answer, no row held; otherwise (a create that timed out) it may hold rows
      boolean refused = !e.refused().isEmpty();
      history.record(process, refused ? Op.Type.FAIL : Op.Type.INFO, "create", List.of(), name);
      if (refused) {
        answered();
      }
      return refused ? process : nextProcess.getAndIncrement();
    } catch (IOException | RuntimeException e) {
      history.record(process, Op.Type.INFO, "create", List.of(), name);
      return nextProcess.getAndIncrement();
    }
    history.record(process, Op.Type.OK, "create", List.of(), name);
    answered();
    createsOk.incrementAndGet();
    List<String> members = new ArrayList<>();
    group.members().forEach(m -> members.add(Bytes.toString(m.row())));
    Shared shared = new Shared(group.id(), List.copyOf(members), new AtomicInteger());
    team.current = shared;
    try {
      for (int t = 0, n = 2 + random.nextInt(5); t < n && !stopping; t++) {
        if (!transactions.run(group, members, process, random, null)) {
          process = nextProcess.getAndIncrement();
        }
      }
      long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PEERS_WAIT_MS);
      while (shared.peerAttempts().get() < peers && System.nanoTime() < waitUntil && !stopping) {
        sleep(5);
      }
    } finally {
      team.current = null;
    }
    history.record(process, Op.Type.INVOKE, "delete", List.of(), name);
    try {
      group.delete();
      history.record(process, Op.Type.OK, "delete", List.of(), name);
      answered();
    } catch (GroupNotFoundException e) {
      history.record(process, Op.Type.FAIL, "delete", List.of(), name);
      answered();
    } catch (IOException | RuntimeException e) {
      history.record(process, Op.Type.INFO, "delete", List.of(), name);
      return nextProcess.getAndIncrement(); // its lease deletes the group if nobody does
    }
    if (random.nextBoolean()) {
      plainWork(process, random, members); // the rows just released: the delete promised they show every commit
    }
    return process;
  }

  /**
   * A few plain operations outside any group, each its own: reads, and appends through HBase's client. Separate
   * {@code Get}s are no snapshot, so several keys read together could show a state no serial order explains without
   * anything being wrong. {@code released}: keys whose group was just deleted, read first; null: random keys.
   */
  private void plainWork(long process, Random random, List<String> released) throws IOException {
    try (Table t = clients.oneAttempt.getTable(table)) {
      for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
        String key = released != null ? released.get(random.nextInt(released.size()))
            : random.nextBoolean() ? heldKey(random) : keys.random(random);
        if (released == null && random.nextBoolean()) {
          plain.append(t, process, key);
        } else {
          plain.read(t, process, key);
        }
      }
    }
  }

  /** A key some group holds now, if any is live; otherwise any. */
  private String heldKey(Random random) {
    byte[] leader = leaderRow(random);
    return leader != null ? Bytes.toString(leader) : keys.random(random);
  }

  private static void sleep(long millis) throws InterruptedIOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted");
    }
  }
}
