package org.gstore.chaos;

import java.io.IOException;
import java.time.Duration;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.testing.GStoreTables;

/**
 * Plain HBase beside G-Store in a chaos run: a few clients, each writing and then reading back single rows of its
 * own (never grouped) through HBase's client, on a table split so that every region server hosts some of it. Each
 * write-and-read is one success on the run's {@link Timeline} as {@link Timeline#PLAIN_HBASE}, so that every
 * fault's stall of G-Store's clients can be set beside plain HBase's in the same run. The table runs G-Store's
 * region coprocessor, as every user table of a cluster configured cluster-wide does: its stalls are what a user's
 * other tables see. Before a fault aimed at one region server, the table is given a region there if it has none
 * ({@link #regionOn}). A read that does not return the client's own last write is counted: HBase lost a write.
 */
final class PlainLoad {
  private static final byte[] CF = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("v");
  private static final int ROWS = 600;
  private static final int REGIONS = 6;
  /** Between two operations of a client: a steady pace that leaves the machine to the workloads under test. */
  private static final long PACE_MILLIS = 50;
  /** How long a fault waits for the plain table's region to move onto its server. */
  private static final Duration MOVE_WAIT = Duration.ofSeconds(10);

  private final Connection connection;
  private final TableName table;
  private final int clients;
  private final long seed;
  private final Timeline timeline;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong ok = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong readsWrong = new AtomicLong();
  private volatile boolean stopping;

  PlainLoad(Connection connection, TableName table, int clients, long seed, Timeline timeline) {
    this.connection = connection;
    this.table = table;
    this.clients = clients;
    this.seed = seed;
    this.timeline = timeline;
  }

  TableName table() {
    return table;
  }

  /** Creates the table (regions on every server, as HBase assigns a new table's) and starts the clients. */
  void start() throws IOException {
    byte[][] splits = new byte[REGIONS - 1][];
    for (int i = 0; i < splits.length; i++) {
      splits[i] = row((i + 1) * ROWS / REGIONS);
    }
    GStoreTables.ensureServed(connection, TableDescriptorBuilder.newBuilder(table)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build(), splits);
    for (int c = 0; c < clients; c++) {
      int client = c;
      Thread t = new Thread(() -> run(client), "chaos-hbase-" + c);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  /**
   * Makes sure {@code server} hosts a region of the table before a fault hits it, moving one there from the server
   * holding the most when it hosts none: plain clients then meet every server fault as G-Store's do. A server just
   * restarted or added hosts none until the balancer runs, and a fault there would cost plain HBase nothing, which
   * said nothing of HBase's recovery. Best effort: a move refused is reported and the fault goes on.
   */
  void regionOn(ServerName server, PrintStream out) {
    byte[] region;
    try (RegionLocator locator = connection.getRegionLocator(table)) {
      Map<ServerName, List<HRegionLocation>> byServer = new HashMap<>();
      for (HRegionLocation l : locator.getAllRegionLocations()) {
        byServer.computeIfAbsent(l.getServerName(), k -> new ArrayList<>()).add(l);
      }
      if (byServer.containsKey(server) || byServer.isEmpty()) {
        return;
      }
      region = byServer.values().stream().max(Comparator.comparingInt(List::size)).orElseThrow().get(0).getRegion()
          .getEncodedNameAsBytes();
    } catch (IOException | RuntimeException e) {
      out.println("chaos: the plain HBase table's regions could not be located (" + e.getMessage() + ")");
      return;
    }
    // waited for at most MOVE_WAIT: a move from a server another fault of the round has just stopped lasts until
    // HBase expires that server, and the fault must not wait for it
    Thread mover = new Thread(() -> {
      try (Admin admin = connection.getAdmin()) {
        admin.move(region, server);
      } catch (IOException | RuntimeException e) {
        out.println("chaos: the plain HBase table has no region on " + server + " for this fault (" + e.getMessage()
            + ")");
      }
    }, "chaos-plain-move");
    mover.setDaemon(true);
    mover.start();
    try {
      mover.join(MOVE_WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the clients, waiting at most {@code wait} for them (an operation in flight may be retrying). */
  void stop(Duration wait) throws InterruptedException {
    stopping = true;
    long deadline = System.nanoTime() + wait.toNanos();
    for (Thread t : threads) {
      t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      t.interrupt();
    }
  }

  long ok() {
    return ok.get();
  }

  long failed() {
    return failed.get();
  }

  /** Reads that did not return the reading client's own last write to the row. */
  long readsWrong() {
    return readsWrong.get();
  }

  private void run(int client) {
    Random random = new Random(seed * 17 + client);
    long written = 0;
    try (Table t = connection.getTable(table)) {
      byte[] row = null;
      while (!stopping && !Thread.currentThread().isInterrupted()) {
        // rows of this client only: its read must return its own last write; after a failure the same row again,
        // as a user's next call needs the row it failed on (moving on to a row of a live server hid HBase's stall)
        if (row == null) {
          row = row(client + clients * random.nextInt(ROWS / clients));
        }
        long value = ++written;
        long began = System.nanoTime();
        try {
          t.put(new Put(row).addColumn(CF, Q, Bytes.toBytes(value)));
          Result r = t.get(new Get(row));
          byte[] read = r.getValue(CF, Q);
          if (read == null || Bytes.toLong(read) != value) {
            readsWrong.incrementAndGet();
          }
          ok.incrementAndGet();
          timeline.committed(Timeline.PLAIN_HBASE, System.nanoTime() - began);
          row = null;
        } catch (IOException | RuntimeException e) {
          failed.incrementAndGet(); // during a fault: tried again, on the same row
        }
        Thread.sleep(PACE_MILLIS);
      }
    } catch (IOException e) {
      failed.incrementAndGet();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static byte[] row(int i) {
    return Bytes.toBytes(String.format("r%04d", i));
  }
}
