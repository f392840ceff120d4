package org.gstore.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.omid.transaction.RollbackException;
import org.apache.omid.transaction.TTable;
import org.apache.omid.transaction.TransactionManager;
import org.gstore.client.KeyGroup;
import org.gstore.client.Transaction;
import org.gstore.client.TransactionConflictException;

/**
 * The G-Store paper's gaming benchmark (section 6.1): each client forms a group of about K players (normal,
 * sigma K/10), chosen at random or as a contiguous range, runs about N operations on them (read, write or
 * read-modify-write, a third each) with a think time between delta and 2 delta, deletes the group, and starts
 * again. With {@code opsKeys} above 1 every operation touches that many players of the game: it reads them, writes
 * them, or moves chips from one to the others (a bet; the sum is conserved). Against plain HBase the same
 * operations run on the same rows without a group, several rows as one batch (no atomicity, like the paper's
 * baseline); against Omid each operation is one Omid transaction (Omid needs no groups).
 *
 * <p>As in the paper, a G-Store operation's latency includes its share of the group's create and delete.
 */
final class GamingWorkload implements Workload {
  /**
   * {@code name} is how results are labelled: {@code gaming}, {@code gaming-n<N>} in a sweep over N, with
   * {@code -m<M>} when every operation touches {@code opsKeys} = M players.
   */
  record Params(String name, int k, int n, long deltaMillis, int rows, boolean contiguous, int opsKeys) {}

  private final Params p;
  private final BenchSystem.Clients clients;

  GamingWorkload(Params params, BenchSystem.Clients clients) {
    this.p = params;
    this.clients = clients;
  }

  @Override
  public String name() {
    return p.name();
  }

  @Override
  public boolean supports(BenchSystem system) {
    return true;
  }

  @Override
  public void runClient(BenchSystem system, int client, Recorder recorder) throws IOException {
    Random random = new Random(1_000L + client);
    try (Table table = clients.connection().getTable(Players.TABLE);
        TTable omidTable = system == BenchSystem.OMID ? clients.omid().table(Players.OMID_TABLE) : null) {
      while (!recorder.done()) {
        int k = Math.max(2, (int) Math.round(p.k() + p.k() / 10.0 * random.nextGaussian()));
        int n = Math.max(1, (int) Math.round(p.n() + p.n() / 5.0 * random.nextGaussian()));
        List<byte[]> players = Players.pick(random, k, p.rows(), p.contiguous());
        switch (system) {
          case GSTORE -> game(players, n, random, recorder);
          case HBASE -> plain(table, players, n, random, recorder);
          case OMID -> omid(omidTable, players, n, random, recorder);
        }
      }
    }
  }

  private void game(List<byte[]> players, int n, Random random, Recorder recorder) throws IOException {
    long t0 = System.nanoTime();
    KeyGroup group = Groups.form(clients.gstore(), players, random, p.rows(), p.contiguous());
    long overhead = System.nanoTime() - t0;
    recorder.phase("create", overhead);
    List<byte[]> rows = new ArrayList<>();
    group.members().forEach(m -> rows.add(m.row()));
    long[] opNanos = new long[n];
    for (int i = 0; i < n && !recorder.done(); i++) {
      think(random);
      GameOp op = nextOp(rows, random, i);
      long start = System.nanoTime();
      while (true) {
        try (Transaction txn = group.begin()) {
          op.apply(gets -> txn.get(Players.TABLE, gets), puts -> txn.put(Players.TABLE, puts));
          txn.commit();
          recorder.committed();
          break;
        } catch (TransactionConflictException e) {
          recorder.aborted();
        }
      }
      opNanos[i] = System.nanoTime() - start;
    }
    long t1 = System.nanoTime();
    group.delete();
    long delete = System.nanoTime() - t1;
    recorder.phase("delete", delete);
    overhead += delete;
    for (long op : opNanos) {
      if (op > 0) {
        recorder.op(op + overhead / n);
      }
    }
  }

  /** Plain HBase: an operation's reads as one batch, then its writes as one batch (not atomic). */
  private void plain(Table table, List<byte[]> players, int n, Random random, Recorder recorder) throws IOException {
    for (int i = 0; i < n && !recorder.done(); i++) {
      think(random);
      GameOp op = nextOp(players, random, i);
      long start = System.nanoTime();
      op.apply(table::get, table::put);
      recorder.op(System.nanoTime() - start);
    }
  }

  private void omid(TTable table, List<byte[]> players, int n, Random random, Recorder recorder)
      throws IOException {
    TransactionManager tm = clients.omid().transactions();
    for (int i = 0; i < n && !recorder.done(); i++) {
      think(random);
      GameOp op = nextOp(players, random, i);
      long start = System.nanoTime();
      while (true) {
        try {
          org.apache.omid.transaction.Transaction tx = tm.begin();
          op.apply(gets -> table.get(tx, gets), puts -> table.put(tx, puts));
          tm.commit(tx);
          recorder.committed();
          break;
        } catch (RollbackException e) {
          recorder.aborted();
        }
      }
      recorder.op(System.nanoTime() - start);
    }
  }

  /**
   * Operation number {@code number} of a game: {@code opsKeys} distinct players of it (all of them if fewer), and
   * a read, a write or a read-modify-write, a third each.
   */
  private GameOp nextOp(List<byte[]> players, Random random, int number) {
    List<byte[]> touched;
    if (p.opsKeys() == 1) {
      touched = List.of(players.get(random.nextInt(players.size())));
    } else {
      List<byte[]> shuffled = new ArrayList<>(players);
      Collections.shuffle(shuffled, random);
      touched = shuffled.subList(0, Math.min(p.opsKeys(), shuffled.size()));
    }
    return new GameOp(touched, random.nextInt(3), number);
  }

  private static int score(Result r) {
    byte[] v = r.getValue(Players.CF, Players.SCORE);
    return v == null || v.length != Bytes.SIZEOF_INT ? 0 : Bytes.toInt(v);
  }

  /** One game operation, the same on every system: kind 0 reads, 1 writes, 2 reads and then writes. */
  private record GameOp(List<byte[]> rows, int kind, int number) {
    boolean reads() {
      return kind != 1;
    }

    boolean writes() {
      return kind != 0;
    }

    /** Reads its rows as one batch (if it reads), then writes them as one batch (if it writes). */
    void apply(RowAccess.Reader reader, RowAccess.Writer writer) throws IOException {
      int[] scores = new int[rows.size()];
      if (reads()) {
        List<Get> gets = new ArrayList<>();
        rows.forEach(row -> gets.add(new Get(row)));
        Result[] results = reader.get(gets);
        for (int r = 0; r < results.length; r++) {
          scores[r] = score(results[r]);
        }
      }
      if (writes()) {
        writer.put(puts(scores));
      }
    }

    /**
     * The writes, given the scores read: a plain write stores the operation's number; a read-modify-write of one
     * player adds one, of several moves one chip from the first player to each of the others (the sum of their
     * scores is unchanged).
     */
    List<Put> puts(int[] scores) {
      List<Put> puts = new ArrayList<>();
      for (int r = 0; r < rows.size(); r++) {
        int value;
        if (kind == 1) {
          value = number;
        } else if (rows.size() == 1) {
          value = scores[0] + 1;
        } else {
          value = r == 0 ? scores[0] - (rows.size() - 1) : scores[r] + 1;
        }
        puts.add(new Put(rows.get(r)).addColumn(Players.CF, Players.SCORE, Bytes.toBytes(value)));
      }
      return puts;
    }
  }

  private void think(Random random) {
    if (p.deltaMillis() > 0) {
      try {
        TimeUnit.MILLISECONDS.sleep(p.deltaMillis() + random.nextInt((int) p.deltaMillis() + 1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
