package org.gstore.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.omid.transaction.RollbackException;
import org.apache.omid.transaction.TTable;
import org.apache.omid.transaction.TransactionManager;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.Transaction;
import org.gstore.client.TransactionConflictException;
import site.ycsb.generator.NumberGenerator;
import site.ycsb.generator.UniformLongGenerator;
import site.ycsb.generator.ZipfianGenerator;

/**
 * YCSB's core mixes as transactions: A (50 % reads, 50 % updates), B (95/5) and F (half reads, half
 * read-modify-writes), with uniform or zipfian row choice (YCSB's own generators). Clients share a pool of groups of
 * K rows and run transactions of {@code txnSize} operations on a random group each time, so hot rows meet
 * concurrent transactions and conflicts happen; aborted transactions count in throughput but not in goodput.
 * Against plain HBase the same operations run as the same two batches (reads, then writes) on the same rows,
 * without atomicity; against Omid they are one Omid transaction on the same rows of its own table (Omid needs no
 * groups). Latency is per operation: a transaction's time divided by its operations.
 */
final class YcsbWorkload implements Workload {
  /**
   * A YCSB core mix: an operation is a read with probability {@code readProportion}, otherwise an update (A, B) or,
   * with {@code readModifyWrite}, a read-modify-write of the same row (F: half reads, half read-modify-writes, as
   * YCSB's own workload F).
   */
  record Mix(String name, double readProportion, boolean readModifyWrite) {
    /** Whether an operation for which {@code draw} (uniform in [0, 1)) was drawn reads its row. */
    boolean reads(double draw) {
      return draw < readProportion || readModifyWrite;
    }

    /** Whether an operation for which {@code draw} was drawn writes its row. */
    boolean writes(double draw) {
      return draw >= readProportion;
    }

    static Mix of(String workload) {
      return switch (workload) {
        case "ycsb-a" -> new Mix(workload, 0.5, false);
        case "ycsb-b" -> new Mix(workload, 0.95, false);
        case "ycsb-f" -> new Mix(workload, 0.5, true);
        default -> throw new IllegalArgumentException("unknown YCSB mix " + workload);
      };
    }
  }

  private final Mix mix;
  private final boolean zipfian;
  private final int k;
  private final int groupCount;
  private final int txnSize;
  private final int rows;
  private final BenchSystem.Clients clients;
  private final List<KeyGroup> pool = new ArrayList<>();

  YcsbWorkload(Mix mix, boolean zipfian, int k, int groupCount, int txnSize, int rows, BenchSystem.Clients clients) {
    this.mix = mix;
    this.zipfian = zipfian;
    this.k = k;
    this.groupCount = groupCount;
    this.txnSize = txnSize;
    this.rows = rows;
    this.clients = clients;
  }

  @Override
  public String name() {
    return mix.name() + (zipfian ? "-zipfian" : "-uniform");
  }

  @Override
  public boolean supports(BenchSystem system) {
    return true;
  }

  /**
   * The groups all clients share: contiguous ranges of K players, formed (atomically, so every row of a range is a
   * member) before the clients start.
   */
  @Override
  public void setUp(BenchSystem system) throws IOException {
    if (system == BenchSystem.GSTORE) {
      for (int g = 0; g < groupCount; g++) {
        List<byte[]> members = new ArrayList<>();
        for (int i = 0; i < k; i++) {
          members.add(Players.row(g * k + i, rows));
        }
        pool.add(clients.gstore().createGroup(GroupSpec.builder().members(Players.TABLE, members).build()));
      }
    }
  }

  @Override
  public void tearDown(BenchSystem system) throws IOException {
    for (KeyGroup g : pool) {
      g.delete();
    }
    pool.clear();
  }

  @Override
  public void runClient(BenchSystem system, int client, Recorder recorder) throws IOException {
    Random random = new Random(3_000L + client);
    NumberGenerator row = zipfian ? new ZipfianGenerator(0, k - 1) : new UniformLongGenerator(0, k - 1);
    try (Table table = clients.connection().getTable(Players.TABLE);
        TTable omidTable = system == BenchSystem.OMID ? clients.omid().table(Players.OMID_TABLE) : null) {
      while (!recorder.done()) {
        int g = random.nextInt(groupCount);
        List<Op> ops = plan(g, row, random);
        long start = System.nanoTime();
        switch (system) {
          case GSTORE -> gstoreTransaction(pool.get(g), ops, recorder);
          case OMID -> omidTransaction(omidTable, ops, recorder);
          case HBASE -> apply(ops, table::get, table::put); // no atomicity
        }
        long perOp = (System.nanoTime() - start) / txnSize;
        for (int i = 0; i < txnSize; i++) {
          recorder.op(perOp);
        }
      }
    }
  }

  /** One operation of a transaction: a row of its group, read, written, or both (read-modify-write). */
  private record Op(byte[] row, boolean read, boolean write, int index) {}

  /** A transaction's operations on group {@code g}'s rows, drawn once so that every system runs the same ones. */
  private List<Op> plan(int g, NumberGenerator row, Random random) {
    List<Op> ops = new ArrayList<>();
    for (int i = 0; i < txnSize; i++) {
      byte[] r = Players.row(g * k + row.nextValue().intValue(), rows);
      double draw = random.nextDouble();
      ops.add(new Op(r, mix.reads(draw), mix.writes(draw), i));
    }
    return ops;
  }

  /**
   * A transaction's reads as one batch, then its writes as one batch: no operation's write depends on what it
   * read, so the read and write sets (what validation sees) are those of running them one by one.
   */
  private static void apply(List<Op> ops, RowAccess.Reader reader, RowAccess.Writer writer) throws IOException {
    List<Get> gets = new ArrayList<>();
    List<Put> puts = new ArrayList<>();
    for (Op op : ops) {
      if (op.read()) {
        gets.add(new Get(op.row()));
      }
      if (op.write()) {
        puts.add(new Put(op.row()).addColumn(Players.CF, Players.SCORE, Bytes.toBytes(op.index())));
      }
    }
    if (!gets.isEmpty()) {
      reader.get(gets);
    }
    if (!puts.isEmpty()) {
      writer.put(puts);
    }
  }

  private static void gstoreTransaction(KeyGroup group, List<Op> ops, Recorder recorder) throws IOException {
    try (Transaction txn = group.begin()) {
      apply(ops, gets -> txn.get(Players.TABLE, gets), puts -> txn.put(Players.TABLE, puts));
      txn.commit();
      recorder.committed();
    } catch (TransactionConflictException e) {
      recorder.aborted();
    }
  }

  private void omidTransaction(TTable table, List<Op> ops, Recorder recorder) throws IOException {
    TransactionManager tm = clients.omid().transactions();
    try {
      org.apache.omid.transaction.Transaction tx = tm.begin();
      apply(ops, gets -> table.get(tx, gets), puts -> table.put(tx, puts));
      tm.commit(tx);
      recorder.committed();
    } catch (RollbackException e) {
      recorder.aborted();
    }
  }
}
