/**
 * The recovery manager on HBase, HDFS and ZooKeeper: when a G-Store region opens, the write-ahead logs of region
 * servers that HBase has declared dead are fenced and replayed into HBase before any group led from that region
 * serves again ({@link org.gstore.recovery.hbase.WalRecovery}, reading logs with {@link
 * org.gstore.recovery.hbase.WalFiles} and writing with {@link org.gstore.recovery.hbase.CommitApplier}), keeping the
 * outcomes of the transactions found there for clients that retry a commit. Thresholds and locks live in ZooKeeper
 * ({@link org.gstore.recovery.hbase.RecoveryZnodes}). May use the core in {@code org.gstore.recovery}, never the
 * coprocessor: the coprocessor's {@code server} package drives it.
 */
package org.gstore.recovery.hbase;
