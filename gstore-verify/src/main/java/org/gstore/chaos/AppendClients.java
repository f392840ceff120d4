package org.gstore.chaos;

import java.io.Closeable;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.gstore.client.GStoreClient;

/**
 * The three ways the list-append workload's clients reach the cluster, each configured for what its history must
 * be able to say.
 */
final class AppendClients implements Closeable {
  /** The commit deadline of the hasty clients (the last client of each team). */
  static final long HASTY_DEADLINE_MS = 1_500;

  /** G-Store's client with the default commit deadline: it retries through faults until it knows the outcome. */
  final GStoreClient patient;
  /**
   * G-Store's client giving a commit {@value #HASTY_DEADLINE_MS} ms, HBase's calls as long: under faults it gives
   * up without knowing the outcome, so that the history holds unknown outcomes ({@code info}).
   */
  final GStoreClient hasty;
  /**
   * Plain operations' connection: one attempt per call, no retries inside HBase's client. A retried
   * {@code checkAndMutate} whose first attempt was applied (its answer lost to a fault) fails its check or meets a
   * group that took the row since, and would be recorded {@code fail} although it happened (a G1a no one made); one
   * attempt makes a refusal or a failed check final.
   */
  final Connection oneAttempt;

  AppendClients(Connection connection) throws IOException {
    Configuration conf = connection.getConfiguration();
    this.patient = GStoreClient.create(connection);
    Configuration hastyConf = new Configuration(conf);
    hastyConf.setLong(GStoreClient.COMMIT_DEADLINE, HASTY_DEADLINE_MS);
    // calls to a dead or paused server give up as soon, or the deadline would only be read after HBase's retries
    hastyConf.setLong(HConstants.HBASE_RPC_TIMEOUT_KEY, HASTY_DEADLINE_MS);
    hastyConf.setLong(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, 2 * HASTY_DEADLINE_MS);
    this.hasty = GStoreClient.create(hastyConf);
    Configuration once = new Configuration(conf);
    once.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 0);
    this.oneAttempt = ConnectionFactory.createConnection(once);
  }

  @Override
  public void close() throws IOException {
    try (GStoreClient p = patient; GStoreClient h = hasty; Connection o = oneAttempt) {
      // each closed, whatever the others do
    }
  }
}
