package org.gstore.chaos;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.bench.GStoreTables;
import org.gstore.common.CommitRefusedException;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupCreationException;
import org.gstore.client.GroupNotFoundException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.NotGroupMemberException;
import org.gstore.client.Transaction;
import org.gstore.client.TransactionConflictException;
import org.gstore.history.CheckReport;
import org.gstore.history.HistoryFormatException;
import org.gstore.history.HistoryReader;
import org.gstore.history.HistoryWriter;
import org.gstore.history.ListAppendChecker;
import org.gstore.history.Mop;
import org.gstore.history.Op;

/**
 * The list-append workload: keys are rows of a table of their own, each holding a list of integers. Clients keep
 * forming small groups over random, overlapping sets of keys (atomic and best-effort, with leases), run a few
 * transactions on each that read some members and append a unique integer to others, and delete the group, so
 * every key passes through many groups; now and then a client reads a few keys with plain HBase {@code Get}s
 * between its groups, one key an operation. Every operation is recorded as it is invoked and as it completes ({@link HistoryWriter}),
 * and the history is checked at the end ({@link ListAppendChecker}).
 *
 * <p>A client that gets no answer (the outcome is unknown) records {@code info} and goes on as a new process, as
 * Jepsen's clients do: the operation may still take effect at any time.
 */
public final class AppendWorkload {
  private static final byte[] CF = Bytes.toBytes("l");
  private static final byte[] LIST = Bytes.toBytes("v");
  private static final Duration LEASE = Duration.ofSeconds(20);

  private final Connection connection;
  private final TableName table;
  private final int keys;
  private final int clients;
  private final long seed;
  private final Path historyFile;
  private final AtomicLong nextValue = new AtomicLong(1);
  private final AtomicLong nextProcess = new AtomicLong();
  private final AtomicLong nextGroup = new AtomicLong();
  private final AtomicLong txnsOk = new AtomicLong();
  private final AtomicLong createsOk = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  private GStoreClient client;
  private HistoryWriter history;
  private volatile boolean stopping;
  /** A planted client bug, for tests: an append writes its value alone, over the list it did not read. */
  private boolean blindAppends;
  private Timeline timeline;

  public AppendWorkload(Connection connection, TableName table, int keys, int clients, long seed, Path historyFile) {
    this.connection = connection;
    this.table = table;
    this.keys = keys;
    this.clients = clients;
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

  public TableName table() {
    return table;
  }

  /** Creates the table (split so that its keys spread over the servers) and starts the clients. */
  public void start() throws IOException {
    byte[][] splits = new byte[7][];
    for (int i = 0; i < splits.length; i++) {
      splits[i] = key((i + 1) * keys / (splits.length + 1));
    }
    GStoreTables.ensureServed(connection, TableDescriptorBuilder.newBuilder(table)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build(), splits);
    history = new HistoryWriter(historyFile);
    client = GStoreClient.create(connection);
    for (int c = 0; c < clients; c++) {
      Random random = new Random(seed * 131 + c);
      Thread t = new Thread(() -> runClient(random), "chaos-append-" + c);
      t.setDaemon(true); // a run that ends abruptly must not be kept alive by its clients
      threads.add(t);
      t.start();
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
      client.close();
    } finally {
      history.close(); // a client still running records nothing more
    }
  }

  /** Checks the history written; a history it cannot read is reported as the exception says. */
  public CheckReport check() throws IOException, HistoryFormatException {
    return ListAppendChecker.check(HistoryReader.read(historyFile), CheckReport.Consistency.STRICT_SERIALIZABLE);
  }

  public long transactionsOk() {
    return txnsOk.get();
  }

  public long createsOk() {
    return createsOk.get();
  }

  public Path historyFile() {
    return historyFile;
  }

  static byte[] key(int i) {
    return Bytes.toBytes(String.format("k%04d", i));
  }

  private void runClient(Random random) {
    long process = nextProcess.getAndIncrement();
    try {
      while (!stopping && !Thread.currentThread().isInterrupted()) {
        if (random.nextInt(3) == 0) {
          plainRead(process, random);
        }
        if (!stopping) {
          process = group(process, random);
        }
      }
    } catch (InterruptedIOException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("the history cannot be written", e);
    }
  }

  /** One group's life: create, a few transactions, delete. Returns the process to go on as. */
  private long group(long process, Random random) throws IOException {
    Set<Integer> picked = new LinkedHashSet<>();
    for (int i = 0, n = 2 + random.nextInt(4); i < n; i++) {
      picked.add(random.nextInt(keys));
    }
    List<Integer> rows = new ArrayList<>(picked);
    GroupSpec.Builder builder = GroupSpec.builder().id("append-" + nextGroup.getAndIncrement())
        .leader(table, key(rows.get(0))).lease(LEASE);
    rows.forEach(r -> builder.member(table, key(r)));
    if (random.nextBoolean()) {
      builder.bestEffort();
    }
    GroupSpec spec = builder.build();
    history.record(process, Op.Type.INVOKE, "create", List.of());
    KeyGroup group;
    try {
      group = client.createGroup(spec);
    } catch (GroupCreationException e) {
      // refused rows: the leader's answer, no row held; otherwise (a create that timed out) it may hold rows
      boolean refused = !e.refused().isEmpty();
      history.record(process, refused ? Op.Type.FAIL : Op.Type.INFO, "create", List.of());
      return refused ? process : nextProcess.getAndIncrement();
    } catch (IOException | RuntimeException e) {
      history.record(process, Op.Type.INFO, "create", List.of());
      return nextProcess.getAndIncrement();
    }
    history.record(process, Op.Type.OK, "create", List.of());
    createsOk.incrementAndGet();
    List<String> members = new ArrayList<>();
    group.members().forEach(m -> members.add(Bytes.toString(m.row())));
    for (int t = 0, n = 1 + random.nextInt(4); t < n && !stopping; t++) {
      if (!transaction(group, members, process, random)) {
        process = nextProcess.getAndIncrement();
      }
    }
    history.record(process, Op.Type.INVOKE, "delete", List.of());
    try {
      group.delete();
      history.record(process, Op.Type.OK, "delete", List.of());
    } catch (GroupNotFoundException e) {
      history.record(process, Op.Type.FAIL, "delete", List.of());
    } catch (IOException | RuntimeException e) {
      history.record(process, Op.Type.INFO, "delete", List.of());
      return nextProcess.getAndIncrement(); // its lease deletes the group if nobody does
    }
    return process;
  }

  /** One transaction reading some members and appending to others; false when its outcome is unknown. */
  private boolean transaction(KeyGroup group, List<String> members, long process, Random random) throws IOException {
    List<Mop> invoked = new ArrayList<>();
    for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
      String k = members.get(random.nextInt(members.size()));
      invoked.add(random.nextBoolean() ? Mop.read(k, null) : Mop.append(k, nextValue.getAndIncrement()));
    }
    history.record(process, Op.Type.INVOKE, "txn", invoked);
    long began = System.nanoTime();
    List<Mop> done;
    try {
      done = group.transact(txn -> run(txn, invoked));
    } catch (TransactionConflictException | GroupNotFoundException | NotGroupMemberException
        | CommitRefusedException e) {
      history.record(process, Op.Type.FAIL, "txn", invoked); // the leader's answer: it did not happen
      return true;
    } catch (IOException | RuntimeException e) {
      history.record(process, Op.Type.INFO, "txn", invoked);
      return false;
    }
    history.record(process, Op.Type.OK, "txn", done);
    txnsOk.incrementAndGet();
    if (timeline != null) {
      timeline.committed("append", System.nanoTime() - began);
    }
    return true;
  }

  /** The micro-operations, in order, inside one attempt of the transaction; the reads with what they saw. */
  private List<Mop> run(Transaction txn, List<Mop> mops) throws IOException {
    List<Mop> done = new ArrayList<>();
    for (Mop m : mops) {
      byte[] row = Bytes.toBytes(m.key());
      long[] list = blindAppends && !m.isRead() ? new long[0] : decode(txn.get(table, new Get(row)));
      if (m.isRead()) {
        done.add(Mop.read(m.key(), list));
      } else {
        long[] appended = java.util.Arrays.copyOf(list, list.length + 1);
        appended[list.length] = m.appended();
        txn.put(table, new Put(row).addColumn(CF, LIST, encode(appended)));
        done.add(m);
      }
    }
    return done;
  }

  /**
   * Plain HBase reads of a few keys, outside any group, each its own operation: separate {@code Get}s are no
   * snapshot, so a read of several keys together could show a state no serial order explains without anything
   * being wrong (one key read before a commit landed, the other after).
   */
  private void plainRead(long process, Random random) throws IOException {
    try (Table t = connection.getTable(table)) {
      for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
        String key = Bytes.toString(key(random.nextInt(keys)));
        history.record(process, Op.Type.INVOKE, "read", List.of(Mop.read(key, null)));
        Mop done;
        try {
          done = Mop.read(key, decode(t.get(new Get(Bytes.toBytes(key)))));
        } catch (IOException | RuntimeException e) {
          history.record(process, Op.Type.FAIL, "read", List.of(Mop.read(key, null))); // a failed read changed nothing
          continue;
        }
        history.record(process, Op.Type.OK, "read", List.of(done));
      }
    }
  }

  static long[] decode(Result r) {
    byte[] v = r == null ? null : r.getValue(CF, LIST);
    if (v == null) {
      return new long[0];
    }
    ByteBuffer b = ByteBuffer.wrap(v);
    long[] list = new long[v.length / Long.BYTES];
    for (int i = 0; i < list.length; i++) {
      list[i] = b.getLong();
    }
    return list;
  }

  static byte[] encode(long[] list) {
    ByteBuffer b = ByteBuffer.allocate(list.length * Long.BYTES);
    for (long v : list) {
      b.putLong(v);
    }
    return b.array();
  }
}
