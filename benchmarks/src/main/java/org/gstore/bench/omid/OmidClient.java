package org.gstore.bench.omid;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.omid.transaction.HBaseOmidClientConfiguration;
import org.apache.omid.transaction.HBaseTransactionManager;
import org.apache.omid.transaction.TTable;
import org.apache.omid.transaction.TransactionManager;
import org.apache.omid.tso.client.OmidClientConfiguration;

/** An Omid client of one TSO: the transaction manager all benchmark threads share, and their tables. */
public final class OmidClient implements Closeable {
  private final Connection connection;
  private final TransactionManager transactions;

  private OmidClient(Connection connection, TransactionManager transactions) {
    this.connection = connection;
    this.transactions = transactions;
  }

  public static OmidClient connect(Connection connection, OmidTso tso, OmidSettings settings) throws IOException {
    HBaseOmidClientConfiguration conf = new HBaseOmidClientConfiguration();
    conf.setConnectionString(tso.address());
    conf.setHBaseConfiguration(connection.getConfiguration());
    conf.setPostCommitMode(settings.asyncPostCommit() ? OmidClientConfiguration.PostCommitMode.ASYNC
        : OmidClientConfiguration.PostCommitMode.SYNC);
    try {
      return new OmidClient(connection, HBaseTransactionManager.newInstance(conf));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted connecting to the Omid TSO", e);
    }
  }

  public TransactionManager transactions() {
    return transactions;
  }

  /** A transactional view of {@code table}; one per thread (like HBase's {@code Table}). */
  public TTable table(TableName table) throws IOException {
    return new TTable(connection, table.getNameAsString());
  }

  /**
   * Closes the transaction manager after a grace period: with ASYNC post-commit, commits still updating shadow
   * cells and removing commit-table entries in the background would otherwise fail on a closed connection
   * (harmless to the benchmark, whose rows are not read again, but noisy).
   */
  @Override
  public void close() throws IOException {
    try {
      TimeUnit.SECONDS.sleep(1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    transactions.close();
  }
}
