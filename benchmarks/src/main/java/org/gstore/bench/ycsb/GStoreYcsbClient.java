package org.gstore.bench.ycsb;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.Vector;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupCreationException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.RowKey;
import org.gstore.client.Transaction;
import org.gstore.client.TransactionConflictException;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.Utils;
import site.ycsb.measurements.Measurements;

/**
 * YCSB binding for G-Store in transactional mode. Each YCSB client thread forms a group of
 * {@code gstore.groupsize} keys, runs {@code gstore.opspergroup} operations on it as transactions of
 * {@code gstore.txnsize} operations, dissolves it and forms the next.
 *
 * <p>The operation YCSB asks for is applied to the member its key maps to: the requested key when it is in the
 * group, otherwise a member chosen by the key's hash, so the workload's read/write mix and distribution shape carry
 * over. Group members are YCSB keys ({@code user<n>}, as {@code insertorder} and {@code zeropadding} make them),
 * chosen at random from {@code recordcount} keys or as a contiguous range ({@code gstore.keyselection}).
 * Group creates ({@code GROUP-CREATE}) and transaction aborts ({@code TXN-ABORT}) are measured on their own; an
 * abort is reported as status {@code TXN_ABORTED} on the operation that committed, never as a failure that stops
 * the thread. Inserts (YCSB's load phase) bypass groups.
 *
 * <pre>
 * java -cp ... site.ycsb.Client -db org.gstore.bench.ycsb.GStoreYcsbClient -P workloads/workloada \
 *     -p columnfamily=family -p hbase.conf=/etc/hbase/conf/hbase-site.xml -p gstore.groupsize=10 -t
 * </pre>
 */
public class GStoreYcsbClient extends DB {
  public static final String GROUP_SIZE = "gstore.groupsize";
  public static final String OPS_PER_GROUP = "gstore.opspergroup";
  public static final String TXN_SIZE = "gstore.txnsize";
  public static final String ATOMIC = "gstore.atomic";
  public static final String KEY_SELECTION = "gstore.keyselection";

  private Connection connection;
  private GStoreClient client;
  private byte[] family;
  private int groupSize;
  private int opsPerGroup;
  private int txnSize;
  private boolean atomic;
  private boolean contiguous;
  private long recordCount;
  private boolean orderedKeys;
  private int zeroPadding;
  private final Random random = new Random();

  private TableName table;
  private KeyGroup group;
  private List<RowKey> members;
  private int opsInGroup;
  private Transaction txn;
  private int opsInTxn;

  @Override
  public void init() throws DBException {
    Properties p = getProperties();
    family = YcsbSupport.family(p);
    groupSize = YcsbSupport.intProperty(p, GROUP_SIZE, 10, 1);
    opsPerGroup = YcsbSupport.intProperty(p, OPS_PER_GROUP, 100, 1);
    txnSize = YcsbSupport.intProperty(p, TXN_SIZE, 1, 1);
    atomic = Boolean.parseBoolean(p.getProperty(ATOMIC, "false"));
    String selection = p.getProperty(KEY_SELECTION, "random");
    if (!selection.equals("random") && !selection.equals("contiguous")) {
      throw new DBException(KEY_SELECTION + " must be random or contiguous, not '" + selection + "'");
    }
    contiguous = selection.equals("contiguous");
    recordCount = Long.parseLong(p.getProperty("recordcount", "1000"));
    orderedKeys = "ordered".equals(p.getProperty("insertorder", "hashed"));
    zeroPadding = YcsbSupport.intProperty(p, "zeropadding", 1, 1);
    try {
      connection = ConnectionFactory.createConnection(YcsbSupport.hbaseConfiguration(p));
      client = GStoreClient.create(connection);
    } catch (IOException e) {
      throw new DBException("cannot connect to HBase", e);
    }
  }

  @Override
  public void cleanup() throws DBException {
    try {
      finishTransaction();
      dissolve();
      client.close();
      connection.close();
    } catch (IOException e) {
      throw new DBException(e);
    }
  }

  @Override
  public Status read(String tableName, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      RowKey row = member(tableName, key);
      Result r = transaction().get(table, new Get(row.row()).addFamily(family));
      YcsbSupport.fields(r, family, fields, result);
      return afterOperation(r.isEmpty() ? Status.NOT_FOUND : Status.OK);
    } catch (IOException e) {
      abandon();
      return Status.ERROR;
    }
  }

  @Override
  public Status update(String tableName, String key, Map<String, ByteIterator> values) {
    try {
      RowKey row = member(tableName, key);
      Put put = new Put(row.row());
      YcsbSupport.values(values).forEach((q, v) -> put.addColumn(family, q, v));
      transaction().put(table, put);
      return afterOperation(Status.OK);
    } catch (IOException e) {
      abandon();
      return Status.ERROR;
    }
  }

  @Override
  public Status delete(String tableName, String key) {
    try {
      RowKey row = member(tableName, key);
      transaction().delete(table, new Delete(row.row()));
      return afterOperation(Status.OK);
    } catch (IOException e) {
      abandon();
      return Status.ERROR;
    }
  }

  @Override
  public Status scan(String tableName, String startKey, int count, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    return Status.NOT_IMPLEMENTED; // a group has no key order; use workloads without scans
  }

  /** Loading rows: plain writes, outside groups (the load phase runs before any group exists). */
  @Override
  public Status insert(String tableName, String key, Map<String, ByteIterator> values) {
    Put put = new Put(Bytes.toBytes(key));
    YcsbSupport.values(values).forEach((q, v) -> put.addColumn(family, q, v));
    try (org.apache.hadoop.hbase.client.Table t = connection.getTable(TableName.valueOf(tableName))) {
      t.put(put);
      return Status.OK;
    } catch (IOException e) {
      return Status.ERROR;
    }
  }

  /** The member the operation on {@code key} applies to, forming a group first if there is none. */
  private RowKey member(String tableName, String key) throws IOException {
    if (group == null || !table.getNameAsString().equals(tableName)) {
      dissolve();
      form(TableName.valueOf(tableName), key);
    }
    RowKey requested = RowKey.of(table, Bytes.toBytes(key));
    return members.contains(requested) ? requested : members.get(Math.floorMod(key.hashCode(), members.size()));
  }

  private void form(TableName tableName, String key) throws IOException {
    table = tableName;
    while (true) {
      Set<String> keys = new LinkedHashSet<>();
      keys.add(key);
      long base = Math.floorMod(random.nextLong(), Math.max(1, recordCount));
      for (int i = 0; keys.size() < groupSize && i < groupSize * 4; i++) {
        long n = contiguous ? (base + i) % recordCount : Math.floorMod(random.nextLong(), recordCount);
        keys.add(keyName(n));
      }
      List<byte[]> rows = new ArrayList<>();
      keys.forEach(k -> rows.add(Bytes.toBytes(k)));
      GroupSpec.Builder spec = GroupSpec.builder().members(table, rows).leader(table, Bytes.toBytes(key));
      long start = System.nanoTime();
      try {
        group = client.createGroup(atomic ? spec.atomic().build() : spec.bestEffort().build());
        Measurements.getMeasurements().measure("GROUP-CREATE", (int) ((System.nanoTime() - start) / 1_000));
        members = new ArrayList<>(group.members());
        opsInGroup = 0;
        return;
      } catch (GroupCreationException e) {
        Measurements.getMeasurements().measure("GROUP-CREATE-FAILED", (int) ((System.nanoTime() - start) / 1_000));
      }
    }
  }

  /** The key YCSB's CoreWorkload gives record {@code n}. */
  private String keyName(long n) {
    String value = Long.toString(orderedKeys ? n : Utils.hash(n));
    StringBuilder key = new StringBuilder("user");
    for (int i = value.length(); i < zeroPadding; i++) {
      key.append('0');
    }
    return key.append(value).toString();
  }

  private Transaction transaction() {
    if (txn == null) {
      txn = group.begin();
      opsInTxn = 0;
    }
    return txn;
  }

  /** Counts the operation; commits every {@code txnsize} operations and moves on every {@code opspergroup}. */
  private Status afterOperation(Status status) throws IOException {
    opsInTxn++;
    opsInGroup++;
    Status result = status;
    if (opsInTxn >= txnSize && !finishTransaction()) {
      result = YcsbSupport.TXN_ABORTED;
    }
    if (opsInGroup >= opsPerGroup) {
      finishTransaction();
      dissolve();
    }
    return result;
  }

  /** Commits the open transaction; false if it was aborted by a conflict. */
  private boolean finishTransaction() throws IOException {
    if (txn == null) {
      return true;
    }
    long start = System.nanoTime();
    try {
      txn.commit();
      return true;
    } catch (TransactionConflictException e) {
      Measurements.getMeasurements().measure("TXN-ABORT", (int) ((System.nanoTime() - start) / 1_000));
      return false;
    } finally {
      txn = null;
    }
  }

  private void dissolve() throws IOException {
    if (group != null) {
      KeyGroup g = group;
      group = null;
      g.delete();
    }
  }

  /** After an infrastructure error: drop the transaction and the group, and start afresh on the next operation. */
  private void abandon() {
    txn = null;
    try {
      dissolve();
    } catch (IOException e) {
      // the group may be gone already; the next operation forms a new one
    }
  }
}
