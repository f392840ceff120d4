/**
 * The recovery manager's core, as pure code (no HBase, HDFS or ZooKeeper types), so that the recovery simulation
 * runs the very classes the region server runs. A leader's shipper bookkeeping ({@link
 * org.gstore.recovery.ShipmentLedger}: which commits are held, numbered shipments, T_F, what the WAL must keep),
 * the heartbeat that publishes T_F, claims T_P, ships again after a death and truncates ({@link
 * org.gstore.recovery.PersistenceHeartbeat} over a {@link org.gstore.recovery.ClaimStore}), the leader's view of
 * every server's claims ({@link org.gstore.recovery.PersistenceTracker}), which records a replay writes ({@link
 * org.gstore.recovery.ReplayFilter}) and how logs are named ({@link org.gstore.recovery.LogId}). Its boundary to
 * the outside is a few small interfaces: {@link org.gstore.recovery.CommitSink} (where commits are written), {@link
 * org.gstore.recovery.ClaimStore} (where thresholds are published), the heartbeat's WAL sync and truncation, and a
 * clock. Production implementations are in {@code org.gstore.recovery.hbase}.
 */
package org.gstore.recovery;
