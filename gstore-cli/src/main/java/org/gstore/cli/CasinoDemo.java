package org.gstore.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.bench.ProgressBar;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupCreationException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.RowKey;
import org.gstore.client.Transaction;
import org.gstore.client.TransactionConflictException;
import org.gstore.testing.GStoreTables;

/**
 * The G-Store paper's motivating application: an online casino. Players are rows; a game is a group of players
 * formed for the game, who bet against each other in many transactions, then dissolved. Money only moves between
 * players, so the total in the table must never change; every game checks its table's total with read-only
 * transactions while it runs, and the demo checks the whole table with plain HBase reads at the end.
 */
final class CasinoDemo {
  static final TableName PLAYERS = TableName.valueOf("casino_players");
  static final byte[] CF = Bytes.toBytes("p");
  static final byte[] CHIPS = Bytes.toBytes("chips");

  /** @param embedded the cluster runs in this JVM, so the servers' metrics can be reported too */
  record Settings(int players, int games, int concurrency, int seats, int bets, long startingChips, long seed,
      boolean embedded) {}

  private final Connection connection;
  private final Settings settings;
  private final PrintStream out;
  private final AtomicLong gamesPlayed = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong aborts = new AtomicLong();
  private final AtomicLong tablesBusy = new AtomicLong();
  private final AtomicLong auditFailures = new AtomicLong();
  private final Latencies txnLatency = new Latencies();
  private final Latencies createLatency = new Latencies();
  private final Latencies deleteLatency = new Latencies();
  private final AtomicLong maxShipperLagRecords = new AtomicLong();
  private final AtomicLong maxShipperLagMillis = new AtomicLong();

  CasinoDemo(Connection connection, Settings settings, PrintStream out) {
    this.connection = connection;
    this.settings = settings;
    this.out = out;
  }

  /** Runs the demo; true if all money is accounted for. */
  boolean run() throws Exception {
    preparePlayers();
    long walRecords = ServerMetrics.counter("walRecords");
    long walSyncs = ServerMetrics.counter("walSyncs");
    long start = System.nanoTime();
    ExecutorService dealers = Executors.newFixedThreadPool(settings.concurrency());
    try (GStoreClient client = GStoreClient.create(connection);
        ProgressBar progress = new ProgressBar(out, () -> (double) gamesPlayed.get() / settings.games(),
            () -> progressLine(start))) {
      List<Future<?>> running = new ArrayList<>();
      AtomicLong next = new AtomicLong();
      for (int d = 0; d < settings.concurrency(); d++) {
        long seed = settings.seed() + d;
        running.add(dealers.submit(() -> {
          Random random = new Random(seed);
          while (next.getAndIncrement() < settings.games()) {
            playOneGame(client, random);
            gamesPlayed.incrementAndGet();
          }
          return null;
        }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      dealers.shutdownNow();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long total = totalChips();
    long expected = settings.players() * settings.startingChips();
    report(seconds, total, expected);
    if (settings.embedded()) {
      reportServers(ServerMetrics.counter("walRecords") - walRecords, ServerMetrics.counter("walSyncs") - walSyncs);
    }
    return total == expected && auditFailures.get() == 0;
  }

  private void preparePlayers() throws IOException {
    byte[][] splits = new byte[7][];
    for (int i = 1; i <= 7; i++) {
      splits[i - 1] = Bytes.toBytes(String.format("player-%d", i));
    }
    GStoreTables.ensureServed(connection, TableDescriptorBuilder.newBuilder(PLAYERS)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build(), splits);
    try (BufferedMutator mutator = connection.getBufferedMutator(PLAYERS)) {
      for (int p = 0; p < settings.players(); p++) {
        mutator.mutate(new Put(player(p)).addColumn(CF, CHIPS, Bytes.toBytes(settings.startingChips())));
      }
    }
    out.printf("%d players with %d chips each at the tables.%n", settings.players(), settings.startingChips());
  }

  /** Row of player {@code p}: the first digit spreads players over the table's regions. */
  static byte[] player(int p) {
    return Bytes.toBytes(String.format("player-%d-%06d", p % 8, p));
  }

  private void playOneGame(GStoreClient client, Random random) throws IOException {
    KeyGroup game = seatPlayers(client, random);
    List<RowKey> seated = new ArrayList<>(game.members());
    long tableTotal = audit(game, seated);
    for (int bet = 0; bet < settings.bets(); bet++) {
      RowKey a = seated.get(random.nextInt(seated.size()));
      RowKey b = seated.get(random.nextInt(seated.size()));
      long stake = 1 + random.nextInt(20);
      boolean aWins = random.nextBoolean();
      placeBet(game, a, b, stake, aWins);
      if (bet % 10 == 9 && audit(game, seated) != tableTotal) {
        auditFailures.incrementAndGet();
      }
    }
    if (audit(game, seated) != tableTotal) {
      auditFailures.incrementAndGet();
    }
    long t0 = System.nanoTime();
    game.delete();
    deleteLatency.add(System.nanoTime() - t0);
  }

  /** Forms a game of free players: best effort, so players busy at other tables are simply not seated. */
  private KeyGroup seatPlayers(GStoreClient client, Random random) throws IOException {
    while (true) {
      List<byte[]> wanted = new ArrayList<>();
      for (int s = 0; s < settings.seats(); s++) {
        wanted.add(player(random.nextInt(settings.players())));
      }
      long t0 = System.nanoTime();
      try {
        KeyGroup game = client.createGroup(GroupSpec.builder().members(PLAYERS, wanted).bestEffort().build());
        createLatency.add(System.nanoTime() - t0);
        if (game.members().size() >= 2) {
          return game;
        }
        game.delete();
      } catch (GroupCreationException e) {
        // the chosen leader was at another table
      }
      tablesBusy.incrementAndGet();
    }
  }

  /** One bet: the loser pays the winner the stake (or all they have). Retried on conflicts, which are counted. */
  private void placeBet(KeyGroup game, RowKey a, RowKey b, long stake, boolean aWins) throws IOException {
    if (a.equals(b)) {
      return;
    }
    RowKey winner = aWins ? a : b;
    RowKey loser = aWins ? b : a;
    while (true) {
      long t0 = System.nanoTime();
      try (Transaction txn = game.begin()) {
        Result[] rows = txn.get(PLAYERS, List.of(new Get(winner.row()), new Get(loser.row())));
        long w = chips(rows[0]);
        long l = chips(rows[1]);
        long paid = Math.min(stake, l);
        txn.put(PLAYERS, new Put(winner.row()).addColumn(CF, CHIPS, Bytes.toBytes(w + paid)));
        txn.put(PLAYERS, new Put(loser.row()).addColumn(CF, CHIPS, Bytes.toBytes(l - paid)));
        txn.commit();
        txnLatency.add(System.nanoTime() - t0);
        commits.incrementAndGet();
        return;
      } catch (TransactionConflictException e) {
        aborts.incrementAndGet();
      }
    }
  }

  /** The chips at a table, read in one consistent snapshot (a read-only transaction never aborts). */
  private long audit(KeyGroup game, List<RowKey> seated) throws IOException {
    List<Get> gets = new ArrayList<>();
    seated.forEach(p -> gets.add(new Get(p.row())));
    try (Transaction txn = game.begin()) {
      long total = 0;
      for (Result r : txn.get(PLAYERS, gets)) {
        total += chips(r);
      }
      txn.commit();
      return total;
    }
  }

  /** The chips of this demo's players, read with plain HBase reads (the table may hold other rows). */
  private long totalChips() throws IOException {
    List<Get> gets = new ArrayList<>();
    for (int p = 0; p < settings.players(); p++) {
      gets.add(new Get(player(p)));
    }
    long total = 0;
    try (Table table = connection.getTable(PLAYERS)) {
      for (Result r : table.get(gets)) {
        total += chips(r);
      }
    }
    return total;
  }

  private static long chips(Result r) {
    byte[] v = r.getValue(CF, CHIPS);
    return v == null ? 0 : Bytes.toLong(v);
  }

  private void report(double seconds, long total, long expected) {
    out.println();
    out.println("Casino report");
    out.printf("  games played          %d (%d players, %d-seat tables, %d bets each, %d dealers)%n",
        gamesPlayed.get(), settings.players(), settings.seats(), settings.bets(), settings.concurrency());
    out.printf("  transactions          %d committed, %d aborted by conflicts (%.1f%%)%n", commits.get(),
        aborts.get(), 100.0 * aborts.get() / Math.max(1, commits.get() + aborts.get()));
    out.printf("  throughput            %.0f committed bets/s over %.1f s%n", commits.get() / seconds, seconds);
    out.printf("  bet latency           p50 %.1f ms, p95 %.1f ms, p99 %.1f ms%n", txnLatency.ms(50),
        txnLatency.ms(95), txnLatency.ms(99));
    out.printf("  game formation        p50 %.1f ms, p99 %.1f ms (%d retries: players busy elsewhere)%n",
        createLatency.ms(50), createLatency.ms(99), tablesBusy.get());
    out.printf("  game dissolution      p50 %.1f ms, p99 %.1f ms%n", deleteLatency.ms(50), deleteLatency.ms(99));
    out.printf("  table audits          %s%n", auditFailures.get() == 0 ? "every table's total held in every audit"
        : auditFailures.get() + " AUDITS FAILED");
    out.printf("  money check           %d chips in the table, %d at the start: %s%n", total, expected,
        total == expected ? "OK, every chip accounted for" : "MISMATCH");
  }

  /** The progress bar's text; also samples the shipper's lag, a few times a second. */
  private String progressLine(long start) {
    sampleShipperLag();
    double seconds = Math.max(1e-3, (System.nanoTime() - start) / 1e9);
    return String.format("%d/%d games, %d bets, %.0f bets/s", gamesPlayed.get(), settings.games(), commits.get(),
        commits.get() / seconds);
  }

  private void sampleShipperLag() {
    if (settings.embedded()) {
      maxShipperLagRecords.accumulateAndGet(ServerMetrics.gauge("shipperLagRecords"), Math::max);
      maxShipperLagMillis.accumulateAndGet(ServerMetrics.gauge("shipperLagMillis"), Math::max);
    }
  }

  private void reportServers(long walRecords, long walSyncs) {
    ServerMetrics.printServerLatencies(out);
    out.printf("  WAL group commit      %d commits in %d syncs: %.2f commits per sync%n", walRecords, walSyncs,
        (double) walRecords / Math.max(1, walSyncs));
    out.printf("  shipper lag           at most %d commits, %d ms behind (sampled on one region server)%n",
        maxShipperLagRecords.get(), maxShipperLagMillis.get());
  }

  /** Latencies in nanoseconds; percentiles by sorting (the demo records at most a few hundred thousand). */
  static final class Latencies {
    private final List<Long> values = Collections.synchronizedList(new ArrayList<>());

    void add(long nanos) {
      values.add(nanos);
    }

    double ms(double percentile) {
      List<Long> sorted;
      synchronized (values) {
        sorted = new ArrayList<>(values);
      }
      if (sorted.isEmpty()) {
        return 0;
      }
      Collections.sort(sorted);
      int i = (int) Math.min(sorted.size() - 1, Math.ceil(percentile / 100 * sorted.size()) - 1);
      return sorted.get(Math.max(0, i)) / 1e6;
    }
  }
}
