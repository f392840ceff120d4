package org.gstore.client;

import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.gstore.common.protocol.LeaseBounds;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link GStoreClient}'s settings, read from its connection's configuration and checked once: a value no client
 * can work with is refused when the client is made, naming its key.
 *
 * @param operationTimeoutMillis how long one create or delete may take ({@link GStoreClient#OPERATION_TIMEOUT})
 * @param transactionAttempts runs of a conflicting transaction ({@link GStoreClient#TRANSACTION_ATTEMPTS})
 * @param commitDeadlineMillis how long a commit is resent ({@link GStoreClient#COMMIT_DEADLINE})
 * @param defaultLease the lease of a group whose spec sets none ({@link GStoreClient#GROUP_LEASE})
 */
record ClientSettings(long operationTimeoutMillis, long transactionAttempts, long commitDeadlineMillis,
    Duration defaultLease) {
  private static final long DEFAULT_OPERATION_TIMEOUT = 120_000;
  private static final long DEFAULT_TRANSACTION_ATTEMPTS = 50;
  private static final long DEFAULT_GROUP_LEASE = 60_000;
  private static final long DEFAULT_COMMIT_DEADLINE = 300_000;
  /** The servers' outcome retention, as this client's configuration says (it should match theirs). */
  private static final String OUTCOME_RETAIN = "gstore.txn.outcome.retain.ms";
  private static final long DEFAULT_OUTCOME_RETAIN = 1_800_000;
  private static final Logger LOG = LoggerFactory.getLogger(GStoreClient.class); // the name operators know

  static ClientSettings from(Configuration conf) {
    long operationTimeout = conf.getLong(GStoreClient.OPERATION_TIMEOUT, DEFAULT_OPERATION_TIMEOUT);
    if (operationTimeout <= 0) {
      throw new IllegalArgumentException(GStoreClient.OPERATION_TIMEOUT + " must be positive: " + operationTimeout);
    }
    long attempts = conf.getLong(GStoreClient.TRANSACTION_ATTEMPTS, DEFAULT_TRANSACTION_ATTEMPTS);
    if (attempts < 1) {
      throw new IllegalArgumentException(GStoreClient.TRANSACTION_ATTEMPTS + " must be at least 1: " + attempts);
    }
    long commitDeadline = conf.getLong(GStoreClient.COMMIT_DEADLINE, DEFAULT_COMMIT_DEADLINE);
    if (commitDeadline < 0) {
      throw new IllegalArgumentException(GStoreClient.COMMIT_DEADLINE + " must not be negative: " + commitDeadline);
    }
    long lease = conf.getLong(GStoreClient.GROUP_LEASE, DEFAULT_GROUP_LEASE);
    if (LeaseBounds.problem(lease) != null) {
      throw new IllegalArgumentException(GStoreClient.GROUP_LEASE + ": " + LeaseBounds.problem(lease));
    }
    warnIfResendsOutliveOutcomes(conf, commitDeadline);
    return new ClientSettings(operationTimeout, attempts, commitDeadline, Duration.ofMillis(lease));
  }

  /**
   * A commit may be sent again for as long as the deadline plus the last call's own HBase retries; the servers
   * keep outcomes {@code gstore.txn.outcome.retain.ms} (30 minutes by default). A resend after that could apply a
   * transaction that only writes a second time.
   */
  private static void warnIfResendsOutliveOutcomes(Configuration conf, long commitDeadlineMillis) {
    long resendWindow = commitDeadlineMillis + conf.getLong(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT,
        HConstants.DEFAULT_HBASE_CLIENT_OPERATION_TIMEOUT);
    long retained = conf.getLong(OUTCOME_RETAIN, DEFAULT_OUTCOME_RETAIN);
    if (resendWindow >= retained) {
      LOG.warn("{} ({} ms) plus {} ({} ms) reaches the servers' outcome retention {} ({} ms): a commit resent that"
          + " late could take effect twice. Lower one of the first two, or raise the third on the servers",
          GStoreClient.COMMIT_DEADLINE, commitDeadlineMillis, HConstants.HBASE_CLIENT_OPERATION_TIMEOUT,
          resendWindow - commitDeadlineMillis, OUTCOME_RETAIN, retained);
    }
  }
}
