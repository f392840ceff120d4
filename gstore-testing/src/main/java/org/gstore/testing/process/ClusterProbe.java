package org.gstore.testing.process;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;

/**
 * Is a cluster of separate processes (JVMs or containers) serving yet? Each check asks the real service: a TCP
 * connect, the NameNode's DataNode report and safe mode, the HBase master's live servers and G-Store's tables.
 */
public final class ClusterProbe {
  /** Something the wait re-checks each round, that ends the wait by throwing (a process that died). */
  public interface Vitals {
    void check() throws IOException;
  }

  private ClusterProbe() {}

  /** Whether something accepts TCP connections on 127.0.0.1:{@code port}. */
  public static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Whether HDFS on 127.0.0.1:{@code nameNodePort} has a live DataNode and has left safe mode. */
  public static boolean hdfsServes(int nameNodePort) {
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", "hdfs://127.0.0.1:" + nameNodePort);
    conf.setInt("ipc.client.connect.max.retries", 0);
    try (FileSystem fs = FileSystem.newInstance(conf)) {
      DistributedFileSystem dfs = (DistributedFileSystem) fs;
      return dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE).length > 0
          && !dfs.setSafeMode(HdfsConstants.SafeModeAction.SAFEMODE_GET);
    } catch (IOException notYet) {
      return false;
    }
  }

  /** Polls {@code ready} until it says true; fails after {@code timeout}, or at once if it throws IOException. */
  public static void await(String what, Duration timeout, Callable<Boolean> ready) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        if (ready.call()) {
          return;
        }
      } catch (IOException fatal) {
        throw fatal;
      } catch (Exception notYet) {
        // not ready
      }
      pause(Duration.ofMillis(250));
    }
    throw new IOException("waited " + timeout.toSeconds() + " s for " + what);
  }

  /**
   * Waits until the master reached through {@code conf} is active, {@code regionServers} region servers are live
   * and G-Store's state tables exist; {@code vitals} runs each round.
   */
  public static void awaitServing(Configuration conf, int regionServers, Duration timeout, Vitals vitals)
      throws IOException {
    Configuration quick = new Configuration(conf);
    quick.setInt("hbase.client.retries.number", 2);
    quick.setInt("zookeeper.recovery.retry", 1);
    long deadline = System.nanoTime() + timeout.toNanos();
    String waitingFor = "the master";
    while (System.nanoTime() < deadline) {
      vitals.check();
      try (Connection connection = ConnectionFactory.createConnection(quick); Admin admin = connection.getAdmin()) {
        int live = admin.getClusterMetrics().getLiveServerMetrics().size();
        waitingFor = live + " of " + regionServers + " region servers";
        if (live == regionServers) {
          waitingFor = "G-Store's state tables";
          if (stateTablesExist(admin)) {
            return;
          }
        }
      } catch (IOException notYet) {
        // the master is not active yet
      }
      pause(Duration.ofSeconds(1));
    }
    throw new IOException("the cluster did not serve within " + timeout.toSeconds() + " s; waiting for "
        + waitingFor);
  }

  private static boolean stateTablesExist(Admin admin) throws IOException {
    for (NamespaceDescriptor ns : admin.listNamespaceDescriptors()) {
      if (ns.getName().equals("gstore")) {
        for (String t : List.of("groups", "owners", "nodes", "outcomes")) {
          TableName name = TableName.valueOf("gstore", t);
          if (!admin.tableExists(name) || !admin.isTableAvailable(name)) {
            return false;
          }
        }
        return true;
      }
    }
    return false;
  }

  private static void pause(Duration d) throws IOException {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the cluster");
    }
  }
}
