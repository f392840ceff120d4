package org.gstore.coprocessor;

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

/**
 * Tells whether a table can hold group members: it exists, is not a system table, and runs G-Store (in its
 * descriptor, or cluster-wide through {@code hbase-site.xml}). Answers are cached for a few seconds.
 */
final class TableGuard {
  private static final long CACHE_MILLIS = 5_000;

  private record Verdict(String problem, long at) {}

  private final Connection connection;
  private final boolean clusterWide;
  private final Map<String, Verdict> cache = new ConcurrentHashMap<>();

  TableGuard(Connection connection, Configuration conf) {
    this.connection = connection;
    this.clusterWide = lists(conf, CoprocessorHost.USER_REGION_COPROCESSOR_CONF_KEY)
        || lists(conf, CoprocessorHost.REGION_COPROCESSOR_CONF_KEY);
  }

  /** Whether G-Store runs on every user table of a cluster configured with {@code conf}. */
  static boolean lists(Configuration conf, String key) {
    return Arrays.stream(conf.getTrimmedStrings(key))
        .map(entry -> entry.split("\\|")[0].trim())
        .anyMatch(GStoreRegionCoprocessor.class.getName()::equals);
  }

  /** Why {@code table} cannot hold group members, or null if it can. */
  String problemWith(String table) throws IOException {
    long now = System.currentTimeMillis();
    Verdict v = cache.get(table);
    if (v != null && now - v.at < CACHE_MILLIS) {
      return v.problem;
    }
    String problem = check(table);
    cache.put(table, new Verdict(problem, now));
    return problem;
  }

  private String check(String table) throws IOException {
    TableName name;
    try {
      name = TableName.valueOf(table);
    } catch (IllegalArgumentException e) {
      return "'" + table + "' is not a valid table name";
    }
    if (name.isSystemTable() || StateTables.NAMESPACE.equals(name.getNamespaceAsString())) {
      return "table " + table + " is a system table; groups hold rows of user tables only";
    }
    TableDescriptor descriptor;
    try (Admin admin = connection.getAdmin()) {
      descriptor = admin.getDescriptor(name);
    } catch (TableNotFoundException e) {
      return "table " + table + " does not exist";
    }
    if (!clusterWide && !descriptor.hasCoprocessor(GStoreRegionCoprocessor.class.getName())) {
      return "table " + table + " does not run G-Store (add " + GStoreRegionCoprocessor.class.getName()
          + " to its descriptor or to " + CoprocessorHost.USER_REGION_COPROCESSOR_CONF_KEY + ")";
    }
    return null;
  }
}
