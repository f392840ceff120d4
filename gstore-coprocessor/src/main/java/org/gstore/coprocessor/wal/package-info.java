/**
 * Durability and shipping of commits: the shared write-ahead log on HDFS (streams with group commit), the update
 * shipper that applies commits to HBase and tracks T_F per stream, and the WAL printing tool. Knows commits as
 * records and writes, not groups' caches; calls only {@code gstore-common}, HDFS, HBase's client and
 * the leaves ({@code concurrent}'s batching thread, {@code metrics}).
 */
package org.gstore.coprocessor.wal;
