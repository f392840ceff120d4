package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
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
 * that region's descriptor, which is the one it serves with. Any other table's answer comes from the master once
 * and is then kept: when it is {@value #REFRESH_MILLIS} ms old it is still given out while a background thread
 * asks the master again, and a failed refresh keeps it. Keeping it while the master is away is sound because only
 * the master alters or drops a table: an answer can be outdated by at most one refresh period, as before, and a
 * master {@code kill -9} no longer stops every group's commits until a new master serves (it stopped them for 50 s
 * in the chaos run of 2026-12-07).
 */
public final class TableGuard implements MemberTables, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableGuard.class);
  static final long REFRESH_MILLIS = 5_000;

  /** Where the master's answer comes from: a table's descriptor, or {@link TableNotFoundException}. */
  @FunctionalInterface
  interface DescriptorSource {
    TableDescriptor descriptor(TableName table) throws IOException;
  }

  private record Verdict(String problem, TableDescriptor descriptor, long at) {}

  private final DescriptorSource master;
  private final Function<TableName, TableDescriptor> servedHere;
  private final boolean clusterWide;
  private final LongSupplier clock;
  private final ExecutorService refresher;
  private final Map<String, Verdict> cache = new ConcurrentHashMap<>();
  private final Set<String> refreshing = ConcurrentHashMap.newKeySet();

  TableGuard(Connection connection, Configuration conf, Function<TableName, TableDescriptor> servedHere,
      ThreadFactory refreshThread) {
    this(table -> {
      try (Admin admin = connection.getAdmin()) {
        return admin.getDescriptor(table);
      }
    }, servedHere, lists(conf, CoprocessorHost.USER_REGION_COPROCESSOR_CONF_KEY)
        || lists(conf, CoprocessorHost.REGION_COPROCESSOR_CONF_KEY), System::currentTimeMillis,
        Executors.newSingleThreadExecutor(refreshThread));
  }

  TableGuard(DescriptorSource master, Function<TableName, TableDescriptor> servedHere, boolean clusterWide,
      LongSupplier clock, ExecutorService refresher) {
    this.master = master;
    this.servedHere = servedHere;
    this.clusterWide = clusterWide;
    this.clock = clock;
    this.refresher = refresher;
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
    Verdict v = cache.get(table);
    if (v != null && clock.getAsLong() - v.at < REFRESH_MILLIS) {
      return v;
    }
    TableName name;
    try {
      name = TableName.valueOf(table);
    } catch (IllegalArgumentException e) {
      return remember(table, new Verdict("'" + table + "' is not a valid table name", null, clock.getAsLong()));
    }
    if (name.isSystemTable() || StateTables.NAMESPACE.equals(name.getNamespaceAsString())) {
      return remember(table, new Verdict("table " + table + " is a system table; groups hold rows of user tables"
          + " only", null, clock.getAsLong()));
    }
    TableDescriptor local = servedHere.apply(name);
    if (local != null) {
      return remember(table, judge(local));
    }
    if (v == null) {
      return remember(table, askMaster(name));
    }
    refreshLater(table, name);
    return v;
  }

  private Verdict remember(String table, Verdict v) {
    cache.put(table, v);
    return v;
  }

  private void refreshLater(String table, TableName name) {
    if (!refreshing.add(table)) {
      return;
    }
    try {
      refresher.execute(() -> {
        try {
          remember(table, askMaster(name));
        } catch (Throwable t) { // kept: the old answer stands until the master answers
          LOG.debug("Could not refresh what G-Store knows of table {}; the answer of {} ms ago stands", table,
              clock.getAsLong() - cache.get(table).at, t);
        } finally {
          refreshing.remove(table);
        }
      });
    } catch (RejectedExecutionException closed) {
      refreshing.remove(table);
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
    refresher.shutdownNow();
  }
}
