/**
 * Durability and shipping of commits: the shared write-ahead log on HDFS (streams with group commit), the update
 * shipper that applies commits to HBase and tracks T_F per stream, and the WAL printing tool. Knows commits as
 * records and writes, not groups' caches; calls only {@code gstore-common}, HDFS, HBase's client and
 * {@code server}'s batching thread.
 */
package org.gstore.coprocessor.wal;
