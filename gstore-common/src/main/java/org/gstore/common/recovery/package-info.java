/**
 * The bookkeeping of crash recovery, as pure code (no HBase, HDFS or ZooKeeper types), proven by the recovery
 * simulation: which WAL records the shipper has seen ({@link org.gstore.common.recovery.Watermark}), how far
 * what it shipped is persisted on every region server (T_P, {@link org.gstore.common.recovery.PersistenceTracker}),
 * and from that what must be shipped again when a server dies and what may be forgotten.
 */
package org.gstore.common.recovery;
