/**
 * Crash recovery on the region servers: when a G-Store region opens, the write-ahead logs of region servers that
 * HBase has declared dead are fenced and replayed into HBase before any group led from that region serves again
 * ({@link org.gstore.coprocessor.recovery.WalRecovery}), keeping the outcomes of the transactions found there for
 * clients that retry a commit; and every heartbeat each server claims what it persisted and each leader forgets,
 * ships again and truncates accordingly ({@link org.gstore.coprocessor.recovery.PersistenceHeartbeat}). Thresholds
 * and locks live in ZooKeeper ({@link org.gstore.coprocessor.recovery.RecoveryZnodes}). May call {@code wal} and
 * the pure bookkeeping of {@code org.gstore.common.recovery}; the {@code server} package drives it.
 */
package org.gstore.coprocessor.recovery;
