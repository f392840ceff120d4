package org.gstore.bench.ycsb;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.omid.transaction.HBaseOmidClientConfiguration;
import org.apache.omid.transaction.HBaseTransactionManager;
import org.apache.omid.transaction.RollbackException;
import org.apache.omid.transaction.TTable;
import org.apache.omid.transaction.Transaction;
import org.apache.omid.transaction.TransactionException;
import org.apache.omid.transaction.TransactionManager;
import org.apache.omid.tso.client.OmidClientConfiguration;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;

/**
 * Apache Omid through YCSB, the transactional system a G-Store user would otherwise pick: every
 * {@code omid.txnsize} operations of a thread (default 1) form one Omid transaction; a conflict is measured as
 * {@code TXN-ABORT} and reported as status {@code TXN_ABORTED} on the operation that committed. Inserts (the load
 * phase) are transactions too, so that Omid's snapshot reads see the rows. Scans are not supported.
 *
 * <pre>
 * -db org.gstore.bench.ycsb.OmidYcsbClient -p columnfamily=family -p omid.tso=host:port
 *     [-p hbase.conf=hbase-site.xml] [-p omid.txnsize=4] [-p omid.postcommit=async|sync]
 * </pre>
 *
 * The table must keep every version of its cells (Omid's multi-versioning) and Omid's commit table must exist;
 * {@code gstore bench} shows how both are set up and starts a TSO ({@code org.gstore.bench.omid.OmidTso}).
 */
public class OmidYcsbClient extends DB {
  public static final String TSO = "omid.tso";
  public static final String TXN_SIZE = "omid.txnsize";
  public static final String POST_COMMIT = "omid.postcommit";

  private Connection connection;
  private TransactionManager transactions;
  private byte[] family;
  private int txnSize;
  private final Map<String, TTable> tables = new HashMap<>();
  private Transaction txn;
  private int opsInTxn;

  @Override
  public void init() throws DBException {
    Properties p = getProperties();
    family = YcsbSupport.family(p);
    txnSize = YcsbSupport.intProperty(p, TXN_SIZE, 1, 1);
    String tso = p.getProperty(TSO);
    if (tso == null || !tso.contains(":")) {
      throw new DBException("the '" + TSO + "' property is required: the Omid TSO's host:port");
    }
    String postCommit = p.getProperty(POST_COMMIT, "async");
    if (!postCommit.equals("async") && !postCommit.equals("sync")) {
      throw new DBException(POST_COMMIT + " must be async or sync, not '" + postCommit + "'");
    }
    Configuration conf = YcsbSupport.hbaseConfiguration(p);
    HBaseOmidClientConfiguration omid = new HBaseOmidClientConfiguration();
    omid.setConnectionString(tso);
    omid.setHBaseConfiguration(conf);
    omid.setPostCommitMode(postCommit.equals("async") ? OmidClientConfiguration.PostCommitMode.ASYNC
        : OmidClientConfiguration.PostCommitMode.SYNC);
    try {
      connection = ConnectionFactory.createConnection(conf);
      transactions = HBaseTransactionManager.newInstance(omid);
    } catch (IOException e) {
      throw new DBException("cannot connect to HBase or the Omid TSO at " + tso, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DBException("interrupted connecting to the Omid TSO", e);
    }
  }

  @Override
  public void cleanup() throws DBException {
    try {
      finishTransaction();
      for (TTable t : tables.values()) {
        t.close();
      }
      transactions.close();
      connection.close();
    } catch (IOException e) {
      throw new DBException(e);
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      Result r = table(table).get(transaction(), new Get(Bytes.toBytes(key)).addFamily(family));
      YcsbSupport.fields(r, family, fields, result);
      return afterOperation(r.isEmpty() ? Status.NOT_FOUND : Status.OK);
    } catch (IOException e) {
      abandon();
      return Status.ERROR;
    }
  }

  @Override
  public Status scan(String table, String startKey, int count, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    return Status.NOT_IMPLEMENTED;
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return insert(table, key, values);
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    Put put = new Put(Bytes.toBytes(key));
    YcsbSupport.values(values).forEach((q, v) -> put.addColumn(family, q, v));
    try {
      table(table).put(transaction(), put);
      return afterOperation(Status.OK);
    } catch (IOException e) {
      abandon();
      return Status.ERROR;
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      table(table).delete(transaction(), new Delete(Bytes.toBytes(key)));
      return afterOperation(Status.OK);
    } catch (IOException e) {
      abandon();
      return Status.ERROR;
    }
  }

  private TTable table(String name) throws IOException {
    TTable t = tables.get(name);
    if (t == null) {
      t = new TTable(connection, name);
      tables.put(name, t);
    }
    return t;
  }

  private Transaction transaction() throws TransactionException {
    if (txn == null) {
      txn = transactions.begin();
      opsInTxn = 0;
    }
    return txn;
  }

  /** Counts the operation and commits every {@code omid.txnsize} operations. */
  private Status afterOperation(Status status) throws TransactionException {
    opsInTxn++;
    if (opsInTxn >= txnSize && !finishTransaction()) {
      return YcsbSupport.TXN_ABORTED;
    }
    return status;
  }

  /** Commits the open transaction; false if Omid aborted it for a conflict. */
  private boolean finishTransaction() throws TransactionException {
    if (txn == null) {
      return true;
    }
    long start = System.nanoTime();
    try {
      transactions.commit(txn);
      return true;
    } catch (RollbackException e) {
      Measurements.getMeasurements().measure("TXN-ABORT", (int) ((System.nanoTime() - start) / 1_000));
      return false;
    } finally {
      txn = null;
    }
  }

  /** After an infrastructure error: roll the transaction back if possible and start afresh. */
  private void abandon() {
    if (txn != null) {
      try {
        transactions.rollback(txn);
      } catch (TransactionException e) {
        // the transaction is dropped either way; Omid's TSO aborts it when it times out
      }
      txn = null;
    }
  }
}
