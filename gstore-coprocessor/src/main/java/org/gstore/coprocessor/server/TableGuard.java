package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.txn.MemberTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells whether a table can hold group members: it exists, is not a system table, and runs G-Store (in its
 * descriptor, or cluster-wide through {@code hbase-site.xml}); and hands out table descriptors for checking
 * commits. One per region server.
 *
 * <p>Every commit asks, so no answer may wait for the master. A table with a region open here is answered from
 * that region's descriptor, which is the one it serves with; any other from the master. The first question about a
 * table asks; a background thread then asks again for every table known here each {@value #REFRESH_MILLIS} ms, and
 * commits take the answer it keeps; a failed refresh keeps the old answer. While the master is reachable an answer is thus at
 * most about one period old, as before; while it is away answers are kept, which is sound because only the master
 * alters or drops a table. A master {@code kill -9} no longer stops every group's commits until a new master serves
 * (it stopped them for 50 s in the chaos run of 2026-12-07). A table no commit asked about for {@value
 * #FORGET_MILLIS} ms is forgotten: its next question asks the master again.
 */
public final class TableGuard implements MemberTables, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableGuard.class);
  static final long REFRESH_MILLIS = 5_000;
  static final long FORGET_MILLIS = 600_000;

  /** Where the master's answer comes from: a table's descriptor, or {@link TableNotFoundException}. */
  @FunctionalInterface
  interface DescriptorSource {
    TableDescriptor descriptor(TableName table) throws IOException;
  }

  private record Verdict(String problem, TableDescriptor descriptor, long at) {}

  /** A table's answer and when a commit last asked for it. */
  private static final class Known {
    final TableName name;
    volatile Verdict verdict;
    volatile long askedAt;

    Known(TableName name, Verdict verdict, long askedAt) {
      this.name = name;
      this.verdict = verdict;
      this.askedAt = askedAt;
    }
  }

  private final DescriptorSource master;
  private final Function<TableName, TableDescriptor> servedHere;
  private final boolean clusterWide;
  private final LongSupplier clock;
  private final ScheduledExecutorService refresher;
  private final Map<String, Known> known = new ConcurrentHashMap<>();

  TableGuard(Connection connection, Configuration conf, Function<TableName, TableDescriptor> servedHere,
      ThreadFactory refreshThread) {
    this(table -> {
      try (Admin admin = connection.getAdmin()) {
        return admin.getDescriptor(table);
      }
    }, servedHere, lists(conf, CoprocessorHost.USER_REGION_COPROCESSOR_CONF_KEY)
        || lists(conf, CoprocessorHost.REGION_COPROCESSOR_CONF_KEY), System::currentTimeMillis,
        Executors.newSingleThreadScheduledExecutor(refreshThread));
  }

  /** @param refresher runs {@link #refreshAll} every {@link #REFRESH_MILLIS}; null: only when a test calls it */
  TableGuard(DescriptorSource master, Function<TableName, TableDescriptor> servedHere, boolean clusterWide,
      LongSupplier clock, ScheduledExecutorService refresher) {
    this.master = master;
    this.servedHere = servedHere;
    this.clusterWide = clusterWide;
    this.clock = clock;
    this.refresher = refresher;
    if (refresher != null) {
      refresher.scheduleWithFixedDelay(this::refreshAll, REFRESH_MILLIS, REFRESH_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  /** Whether G-Store runs on every user table of a cluster configured with {@code conf}. */
  public static boolean lists(Configuration conf, String key) {
    return Arrays.stream(conf.getTrimmedStrings(key))
        .map(entry -> entry.split("\\|")[0].trim())
        .anyMatch(GStoreConfig.REGION_COPROCESSOR::equals);
  }

  /** Why {@code table} cannot hold group members, or null if it can. */
  @Override
  public String problemWith(String table) throws IOException {
    return verdict(table).problem;
  }

  /** The descriptor of a table that can hold group members, or null (see {@link #problemWith}). */
  @Override
  public TableDescriptor descriptor(String table) throws IOException {
    return verdict(table).descriptor;
  }

  private Verdict verdict(String table) throws IOException {
    long now = clock.getAsLong();
    Known k = known.get(table);
    if (k != null) {
      k.askedAt = now;
      return k.verdict;
    }
    TableName name;
    try {
      name = TableName.valueOf(table);
    } catch (IllegalArgumentException e) {
      return new Verdict("'" + table + "' is not a valid table name", null, now); // not kept: any name may come
    }
    if (name.isSystemTable() || StateTables.NAMESPACE.equals(name.getNamespaceAsString())) {
      return new Verdict("table " + table + " is a system table; groups hold rows of user tables only", null, now);
    }
    Verdict v = ask(name);
    known.put(table, new Known(name, v, now));
    return v;
  }

  /** The answer from a region of the table open here, if any (the descriptor it serves with), else the master's. */
  private Verdict ask(TableName name) throws IOException {
    TableDescriptor local = servedHere.apply(name);
    return local != null ? judge(local) : askMaster(name);
  }

  /**
   * Asks again about every table known here (a region of it open here, else the master), keeping the old answer of any it cannot answer now, and
   * forgets the tables no commit asked about for {@link #FORGET_MILLIS}. Never throws: it runs on the refresher.
   */
  void refreshAll() {
    long now = clock.getAsLong();
    for (Map.Entry<String, Known> e : known.entrySet()) {
      Known k = e.getValue();
      if (now - k.askedAt >= FORGET_MILLIS) {
        known.remove(e.getKey(), k);
        continue;
      }
      try {
        k.verdict = ask(k.name);
      } catch (Throwable t) { // NOPMD: the old answer stands until the master answers; the next refresh asks again
        LOG.debug("Could not refresh what G-Store knows of table {}; the answer of {} ms ago stands", e.getKey(),
            now - k.verdict.at, t);
      }
    }
  }

  private Verdict askMaster(TableName name) throws IOException {
    try {
      return judge(master.descriptor(name));
    } catch (TableNotFoundException e) {
      return new Verdict("table " + name.getNameAsString() + " does not exist", null, clock.getAsLong());
    }
  }

  private Verdict judge(TableDescriptor descriptor) {
    if (!clusterWide && !descriptor.hasCoprocessor(GStoreConfig.REGION_COPROCESSOR)) {
      return new Verdict("table " + descriptor.getTableName().getNameAsString() + " does not run G-Store (add "
          + GStoreConfig.REGION_COPROCESSOR + " to its descriptor or to "
          + CoprocessorHost.USER_REGION_COPROCESSOR_CONF_KEY + ")", null, clock.getAsLong());
    }
    return new Verdict(null, descriptor, clock.getAsLong());
  }

  @Override
  public void close() {
    if (refresher != null) {
      refresher.shutdownNow();
    }
  }
}
