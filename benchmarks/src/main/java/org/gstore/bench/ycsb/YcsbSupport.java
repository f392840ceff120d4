package org.gstore.bench.ycsb;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Properties;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;

/** What the bindings share: configuration from YCSB properties, and rows to YCSB fields and back. */
final class YcsbSupport {
  /** Path of an {@code hbase-site.xml}; without it, the one on the classpath (like YCSB's HBase binding). */
  static final String HBASE_CONF = "hbase.conf";
  /** What the transactional bindings return for an operation whose commit lost to a conflict. */
  static final Status TXN_ABORTED = new Status("TXN_ABORTED", "the transaction was aborted by a conflict");
  /** The column family holding the fields (YCSB's HBase binding property). */
  static final String COLUMN_FAMILY = "columnfamily";

  private YcsbSupport() {}

  static Configuration hbaseConfiguration(Properties p) throws DBException {
    Configuration conf = HBaseConfiguration.create();
    String file = p.getProperty(HBASE_CONF);
    if (file != null) {
      if (!new File(file).isFile()) {
        throw new DBException(HBASE_CONF + ": no such file " + file);
      }
      conf.addResource(new Path(new File(file).getAbsolutePath()));
    }
    return conf;
  }

  static byte[] family(Properties p) throws DBException {
    String cf = p.getProperty(COLUMN_FAMILY);
    if (cf == null || cf.isEmpty()) {
      throw new DBException("the '" + COLUMN_FAMILY + "' property is required (-p " + COLUMN_FAMILY + "=family)");
    }
    return Bytes.toBytes(cf);
  }

  static int intProperty(Properties p, String key, int dflt, int min) throws DBException {
    String raw = p.getProperty(key);
    if (raw == null) {
      return dflt;
    }
    try {
      int v = Integer.parseInt(raw.trim());
      if (v >= min) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new DBException(key + " must be a whole number of at least " + min + ", not '" + raw + "'");
  }

  /** The fields of a row's family, restricted to {@code fields} (all when null). */
  static void fields(Result r, byte[] family, Set<String> fields, Map<String, ByteIterator> out) {
    NavigableMap<byte[], byte[]> columns = r.getFamilyMap(family);
    if (columns == null) {
      return;
    }
    columns.forEach((q, v) -> {
      String name = Bytes.toString(q);
      if (fields == null || fields.contains(name)) {
        out.put(name, new ByteArrayByteIterator(v));
      }
    });
  }

  static Map<byte[], byte[]> values(Map<String, ByteIterator> values) {
    Map<byte[], byte[]> bytes = new HashMap<>();
    values.forEach((k, v) -> bytes.put(Bytes.toBytes(k), v.toArray()));
    return bytes;
  }
}
