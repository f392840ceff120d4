package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.txn.MemberTables;

/**
 * Tells whether a table can hold group members: it exists, is not a system table, and runs G-Store (in its
 * descriptor, or cluster-wide through {@code hbase-site.xml}); and hands out table descriptors for checking
 * commits. Answers are cached for a few seconds. One per region server.
 */
public final class TableGuard implements MemberTables {
  private static final long CACHE_MILLIS = 5_000;

  private record Verdict(String problem, TableDescriptor descriptor, long at) {}

  private final Connection connection;
  private final boolean clusterWide;
  private final Map<String, Verdict> cache = new ConcurrentHashMap<>();

  TableGuard(Connection connection, Configuration conf) {
    this.connection = connection;
    this.clusterWide = lists(conf, CoprocessorHost.USER_REGION_COPROCESSOR_CONF_KEY)
        || lists(conf, CoprocessorHost.REGION_COPROCESSOR_CONF_KEY);
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
    long now = System.currentTimeMillis();
    Verdict v = cache.get(table);
    if (v == null || now - v.at >= CACHE_MILLIS) {
      v = check(table, now);
      cache.put(table, v);
    }
    return v;
  }

  private Verdict check(String table, long now) throws IOException {
    TableName name;
    try {
      name = TableName.valueOf(table);
    } catch (IllegalArgumentException e) {
      return new Verdict("'" + table + "' is not a valid table name", null, now);
    }
    if (name.isSystemTable() || StateTables.NAMESPACE.equals(name.getNamespaceAsString())) {
      return new Verdict("table " + table + " is a system table; groups hold rows of user tables only", null, now);
    }
    TableDescriptor descriptor;
    try (Admin admin = connection.getAdmin()) {
      descriptor = admin.getDescriptor(name);
    } catch (TableNotFoundException e) {
      return new Verdict("table " + table + " does not exist", null, now);
    }
    if (!clusterWide && !descriptor.hasCoprocessor(GStoreConfig.REGION_COPROCESSOR)) {
      return new Verdict("table " + table + " does not run G-Store (add " + GStoreConfig.REGION_COPROCESSOR
          + " to its descriptor or to " + CoprocessorHost.USER_REGION_COPROCESSOR_CONF_KEY + ")", null, now);
    }
    return new Verdict(null, descriptor, now);
  }
}
