/**
 * A real G-Store cluster on one machine, in separate JVMs started from the distribution
 * ({@code gstore-dist/target/gstore}): ZooKeeper, an HDFS NameNode and DataNode, an HMaster and N region servers,
 * each with its own configuration directory, log, PID file and ports under one working directory. G-Store is
 * installed into it exactly as docs/operations.md tells an operator (the coprocessor jar on the master's and region
 * servers' classpath, the keys in their {@code hbase-site.xml}).
 *
 * <p>{@link org.gstore.testing.process.ProcessCluster} is what {@code gstore cluster start|stop|status|kill|restart}
 * and the process-cluster tests use. Its state lives on disk, so one command can start a cluster and a later one,
 * in another JVM, kill or stop it.
 */
package org.gstore.testing.process;
