/**
 * Crash recovery on the region servers: when a G-Store region opens, the write-ahead logs of region servers that
 * HBase has declared dead are fenced and replayed into HBase before any group led from that region serves again
 * ({@link org.gstore.coprocessor.recovery.WalRecovery}), and the outcomes of the transactions found there are kept
 * so that a client retrying a commit learns its true outcome. May call {@code wal} (to read logs and write commits)
 * and {@code transport} (for the ZooKeeper session); the {@code server} package drives it.
 */
package org.gstore.coprocessor.recovery;
