package org.gstore.bench.omid;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.omid.committable.hbase.HBaseCommitTableConfig;
import org.apache.omid.timestamp.storage.HBaseTimestampStorageConfig;
import org.apache.omid.tools.hbase.OmidTableManager;

/**
 * An Apache Omid timestamp oracle (TSO) for a benchmark, run as Omid's users run it: Omid's own
 * {@code org.apache.omid.tso.TSOServer} in a JVM of its own, with an {@code omid-server-configuration.yml} and the
 * cluster's {@code hbase-site.xml} first on its classpath, keeping its timestamps and commit table in HBase.
 * A separate process also sidesteps Omid 1.1.3's TSO leaving a thread behind on shutdown, which breaks a second
 * TSO in the same JVM. Creates Omid's commit and timestamp tables with Omid's {@code OmidTableManager} if missing.
 */
public final class OmidTso implements Closeable {
  private static final long START_TIMEOUT_MILLIS = 120_000;

  private final Process process;
  private final int port;
  private final Path log;
  /** Takes the TSO along when the benchmark is stopped with Ctrl-C (kill -9 of the benchmark cannot). */
  private final Thread stopper;

  private OmidTso(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
    this.stopper = new Thread(process::destroy, "omid-tso-stopper");
    Runtime.getRuntime().addShutdownHook(stopper);
  }

  /** Starts a TSO for the cluster {@code connection} reaches; returns once it accepts clients. */
  public static OmidTso start(Connection connection, OmidSettings settings, Path workDir) throws IOException {
    createTables(connection);
    Path conf = Files.createDirectories(workDir.resolve("conf"));
    try (OutputStream out = Files.newOutputStream(conf.resolve("hbase-site.xml"))) {
      connection.getConfiguration().writeXml(out);
    }
    int port = freePort();
    Files.writeString(conf.resolve("omid-server-configuration.yml"), serverYaml(settings, port),
        StandardCharsets.UTF_8);
    Path log = workDir.resolve("tso.log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx1g");
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-") || arg.startsWith("-Dlog4j")) {
        command.add(arg); // JDK 17 module openings the HBase client needs, and the caller's logging setup
      }
    }
    command.add("-cp");
    command.add(conf + File.pathSeparator + System.getProperty("java.class.path"));
    command.add("org.apache.omid.tso.TSOServer");
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    OmidTso tso = new OmidTso(process, port, log);
    try {
      tso.awaitAccepting();
    } catch (IOException | RuntimeException e) {
      tso.close();
      throw e;
    }
    return tso;
  }

  /** {@code host:port} for Omid clients. */
  public String address() {
    return "localhost:" + port;
  }

  private void awaitAccepting() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("the Omid TSO exited with " + process.exitValue() + "; see " + log);
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("localhost", port), 500);
        if (!process.isAlive()) { // something else took the port: the TSO could not bind it
          throw new IOException("the Omid TSO exited with " + process.exitValue() + "; see " + log);
        }
        return;
      } catch (SocketException | SocketTimeoutException notYet) {
        try {
          process.waitFor(200, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted waiting for the Omid TSO", e);
        }
      }
    }
    throw new IOException("the Omid TSO did not accept clients within " + START_TIMEOUT_MILLIS / 1000 + " s; see "
        + log);
  }

  static String serverYaml(OmidSettings s, int port) {
    return String.join("\n",
        "port: " + port,
        "waitStrategy: " + s.waitStrategy(),
        "conflictMapSize: 1000000",
        "numConcurrentCTWriters: 2",
        "batchSizePerCTWriter: 25",
        "batchPersistTimeoutInMs: " + s.batchPersistMillis(),
        "timestampType: WORLD_TIME",
        "lowLatency: " + s.lowLatency(),
        "timestampStoreModule: !!org.apache.omid.timestamp.storage.DefaultHBaseTimestampStorageModule [ ]",
        "commitTableStoreModule: !!org.apache.omid.committable.hbase.DefaultHBaseCommitTableStorageModule [ ]",
        "leaseModule: !!org.apache.omid.tso.VoidLeaseManagementModule [ ]",
        "metrics: !!org.apache.omid.metrics.NullMetricsProvider [ ]",
        "monitorContext: false",
        "tlsEnabled: false",
        "supportPlainText: true",
        "");
  }

  private static void createTables(Connection connection) throws IOException {
    Configuration conf = connection.getConfiguration();
    try (Admin admin = connection.getAdmin()) {
      if (!admin.tableExists(TableName.valueOf(HBaseCommitTableConfig.DEFAULT_COMMIT_TABLE_NAME))) {
        new OmidTableManager("commit-table").executeActionsOnHBase(conf);
      }
      if (!admin.tableExists(TableName.valueOf(HBaseTimestampStorageConfig.DEFAULT_TIMESTAMP_STORAGE_TABLE_NAME))) {
        new OmidTableManager("timestamp-table").executeActionsOnHBase(conf);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Stops the TSO: SIGTERM, then SIGKILL after 10 s. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(stopper);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or about to: it stops the TSO itself
    }
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
