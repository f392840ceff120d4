package org.gstore.bench;

import java.io.IOException;
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
import org.gstore.client.RowKey;
import org.gstore.client.Transaction;
import org.gstore.client.TransactionConflictException;

/**
 * The G-Store paper's gaming benchmark (section 6.1): each client forms a group of about K players (normal,
 * sigma K/10), chosen at random or as a contiguous range, runs about N operations on them (read, write or
 * read-modify-write, a third each) with a think time between delta and 2 delta, deletes the group, and starts
 * again. Against plain HBase the same operations run on the same rows without a group; against Omid each operation
 * is one Omid transaction (Omid needs no groups).
 *
 * <p>As in the paper, a G-Store operation's latency includes its share of the group's create and delete.
 */
final class GamingWorkload implements Workload {
  /** {@code name} is how results are labelled: {@code gaming}, or {@code gaming-n<N>} in a sweep over N. */
  record Params(String name, int k, int n, long deltaMillis, int rows, boolean contiguous) {}

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
    List<RowKey> members = List.copyOf(group.members());
    long[] opNanos = new long[n];
    for (int i = 0; i < n && !recorder.done(); i++) {
      think(random);
      byte[] row = members.get(random.nextInt(members.size())).row();
      int kind = random.nextInt(3);
      long start = System.nanoTime();
      while (true) {
        try (Transaction txn = group.begin()) {
          if (kind != 1) {
            txn.get(Players.TABLE, new Get(row));
          }
          if (kind != 0) {
            txn.put(Players.TABLE, new Put(row).addColumn(Players.CF, Players.SCORE, Bytes.toBytes(i)));
          }
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

  private void plain(Table table, List<byte[]> players, int n, Random random, Recorder recorder) throws IOException {
    for (int i = 0; i < n && !recorder.done(); i++) {
      think(random);
      byte[] row = players.get(random.nextInt(players.size()));
      int kind = random.nextInt(3);
      long start = System.nanoTime();
      if (kind != 1) {
        Result r = table.get(new Get(row));
        r.isEmpty();
      }
      if (kind != 0) {
        table.put(new Put(row).addColumn(Players.CF, Players.SCORE, Bytes.toBytes(i)));
      }
      recorder.op(System.nanoTime() - start);
    }
  }

  private void omid(TTable table, List<byte[]> players, int n, Random random, Recorder recorder)
      throws IOException {
    TransactionManager tm = clients.omid().transactions();
    for (int i = 0; i < n && !recorder.done(); i++) {
      think(random);
      byte[] row = players.get(random.nextInt(players.size()));
      int kind = random.nextInt(3);
      long start = System.nanoTime();
      while (true) {
        try {
          org.apache.omid.transaction.Transaction tx = tm.begin();
          if (kind != 1) {
            table.get(tx, new Get(row));
          }
          if (kind != 0) {
            table.put(tx, new Put(row).addColumn(Players.CF, Players.SCORE, Bytes.toBytes(i)));
          }
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
