package org.gstore.testing;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.MiniHBaseCluster;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupId;
import org.gstore.client.GroupNotFoundException;
import org.gstore.client.RowKey;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.GStoreMasterObserver;
import org.gstore.coprocessor.GStoreRegionCoprocessor;
import org.gstore.coprocessor.server.GStoreServers;
import org.gstore.testing.security.SecureMode;

/**
 * HDFS, ZooKeeper, an HBase master and N region servers with G-Store, in one JVM: for G-Store's own tests, the
 * embedded demo and applications' tests (like {@code hbase-testing-util}). Tables made with
 * {@link #createTable} run G-Store (installed in their descriptor) and have their regions spread over every region
 * server.
 */
public final class GStoreMiniCluster implements AutoCloseable {
  private static final String TMPDIR = "java.io.tmpdir";
  /** The JVM's own temp directory, before any cluster pointed it elsewhere. */
  private static final String JVM_TMPDIR = System.getProperty(TMPDIR);

  private final HBaseTestingUtility util;
  /** {@code java.io.tmpdir} before this cluster started (another cluster's, or the JVM's). */
  private final String tmpdirBefore;

  /** A system property of settings every cluster a test starts gets on top of its own. */
  public static final String EXTRA_SETTINGS = "gstore.it.set";

  /** The secure mode the cluster runs in; null: none. */
  private final SecureMode secure;
  /** Connections {@link #connectAs} opened, closed with the cluster. */
  private final List<Connection> userConnections = new java.util.concurrent.CopyOnWriteArrayList<>();

  private GStoreMiniCluster(HBaseTestingUtility util, String tmpdirBefore, SecureMode secure) {
    this.util = util;
    this.tmpdirBefore = tmpdirBefore;
    this.secure = secure;
  }

  /** Starts a cluster with {@code regionServers} region servers. */
  public static GStoreMiniCluster start(int regionServers) throws Exception {
    return start(regionServers, Map.of());
  }

  /**
   * Starts a cluster whose configuration also has {@code settings} (for example {@code gstore.*} keys), and then
   * those of the system property {@value #EXTRA_SETTINGS} ({@code key=value,...}): a whole test suite can run with
   * a setting it does not name, as with {@code -Dgstore.it.set=gstore.protocol.log=wal}.
   */
  public static GStoreMiniCluster start(int regionServers, Map<String, String> settings) throws Exception {
    return start(regionServers, settings, false);
  }

  /**
   * Starts a cluster in {@link SecureMode}, as a production cluster with Kerberos runs: a KDC on loopback, Kerberos
   * authentication for HDFS, ZooKeeper (SASL) and HBase, the {@code AccessController}, RPC encrypted. The JVM's own
   * user becomes {@code hbase/localhost}, the servers' principal. A secure cluster needs a JVM of its own (Kerberos
   * and JAAS settings are global to the JVM).
   */
  public static GStoreMiniCluster startSecure(int regionServers, Map<String, String> settings) throws Exception {
    return start(regionServers, settings, true);
  }

  /** Starts a cluster in {@link SecureMode} with {@code regionServers} region servers and no extra settings. */
  public static GStoreMiniCluster startSecure(int regionServers) throws Exception {
    return startSecure(regionServers, Map.of());
  }

  /**
   * A new HBase connection authenticated as {@code name} of the cluster's realm (a client principal made with a
   * keytab of its own on first use and logged in from it; any name works, "alice" and "bob" as well as others),
   * closed with the cluster if not before. A secure cluster only ({@link IllegalStateException} otherwise).
   */
  public Connection connectAs(String name) throws Exception {
    Connection connection = ConnectionFactory.createConnection(getConfiguration(), secureMode().user(name));
    userConnections.add(connection);
    return connection;
  }

  private static GStoreMiniCluster start(int regionServers, Map<String, String> settings, boolean secured)
      throws Exception {
    String tmpdirBefore = System.getProperty(TMPDIR);
    HBaseTestingUtility util = new HBaseTestingUtility();
    Configuration conf = util.getConfiguration();
    conf.set(GStoreConfig.CLUSTER_SECRET_FILE, writeSecretFile(util).toString());
    conf.set(GStoreConfig.UDP_BIND_ADDRESS, "127.0.0.1");
    conf.set(CoprocessorHost.MASTER_COPROCESSOR_CONF_KEY, GStoreMasterObserver.class.getName());
    SecureMode secure = secured
        ? SecureMode.prepare(conf, new java.io.File(util.getDataTestDir("kdc").toUri().getPath())) : null;
    settings.forEach(conf::set);
    for (String setting : System.getProperty(EXTRA_SETTINGS, "").split(",")) {
      if (setting.isBlank()) {
        continue;
      }
      int eq = setting.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("-D" + EXTRA_SETTINGS + " takes key=value,...; not '" + setting + "'");
      }
      conf.set(setting.substring(0, eq).trim(), setting.substring(eq + 1).trim());
    }
    try {
      util.startMiniCluster(regionServers);
      if (secure != null) {
        util.waitTableAvailable(org.apache.hadoop.hbase.security.access.PermissionStorage.ACL_TABLE_NAME);
      }
    } catch (Exception | Error e) {
      if (secure != null) {
        secure.close();
      }
      throw e;
    }
    return new GStoreMiniCluster(util, tmpdirBefore, secure);
  }

  /** The cluster's secure mode, to make users of its realm; {@link IllegalStateException} if it has none. */
  public SecureMode secureMode() {
    if (secure == null) {
      throw new IllegalStateException("this cluster was not started with startSecure");
    }
    return secure;
  }

  /** A random cluster secret in a file only this user can read, as region servers should keep it. */
  private static java.nio.file.Path writeSecretFile(HBaseTestingUtility util) throws IOException {
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    java.nio.file.Path dir = java.nio.file.Paths.get(util.getDataTestDir().toUri().getPath());
    java.nio.file.Files.createDirectories(dir);
    java.nio.file.Path file = dir.resolve("gstore-cluster.secret");
    java.nio.file.Files.deleteIfExists(file);
    java.nio.file.Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
    java.nio.file.Files.writeString(file, Base64.getEncoder().encodeToString(secret));
    return file;
  }

  /** The cluster secret the region servers use, for tests that forge or re-sign G-Store messages. */
  public byte[] clusterSecret() {
    return GStoreConfig.from(util.getConfiguration()).clusterSecret();
  }

  /** The configuration clients use to reach the cluster (it also holds the cluster's G-Store settings). */
  public Configuration getConfiguration() {
    return util.getConfiguration();
  }

  /** A shared HBase connection, closed with the cluster. */
  public Connection getConnection() {
    try {
      return util.getConnection();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The underlying utility, for fault tests: kill, abort or add region servers, move regions. */
  public HBaseTestingUtility getTestingUtility() {
    return util;
  }

  /**
   * Creates a G-Store table split at {@code splitKeys} (may be null or empty) with its regions spread over all
   * region servers, and returns once every region serves G-Store.
   */
  public Table createTable(TableName name, byte[][] families, byte[][] splitKeys) throws IOException {
    TableDescriptorBuilder descriptor = TableDescriptorBuilder.newBuilder(name)
        .setCoprocessor(GStoreRegionCoprocessor.class.getName());
    for (byte[] family : families) {
      descriptor.setColumnFamily(ColumnFamilyDescriptorBuilder.of(family));
    }
    try (Admin admin = getConnection().getAdmin()) {
      if (splitKeys == null || splitKeys.length == 0) {
        admin.createTable(descriptor.build());
      } else {
        admin.createTable(descriptor.build(), splitKeys);
      }
      util.waitTableAvailable(name);
      spread(admin, name);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted creating " + name);
    }
    awaitGStoreReady(name);
    return getConnection().getTable(name);
  }

  private void spread(Admin admin, TableName name) throws IOException, InterruptedException {
    List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
    servers.sort(null);
    List<RegionInfo> regions = admin.getRegions(name);
    for (int i = 0; i < regions.size(); i++) {
      admin.move(regions.get(i).getEncodedNameAsBytes(), servers.get(i % servers.size()));
    }
    util.waitUntilNoRegionsInTransition(60_000);
  }

  /** Asks each region's endpoint about a group that does not exist: it answers once the region's state loaded. */
  private void awaitGStoreReady(TableName name) throws IOException {
    try (GStoreClient client = GStoreClient.create(getConnection()); Admin admin = getConnection().getAdmin()) {
      for (RegionInfo region : admin.getRegions(name)) {
        try {
          // the smallest row inside the region (a start key may be empty, and no row is)
          byte[] probe = java.util.Arrays.copyOf(region.getStartKey(), region.getStartKey().length + 1);
          client.getGroup(GroupId.of("ready-probe", RowKey.of(name, probe)));
        } catch (GroupNotFoundException expected) {
          // the region answered: its G-Store state is loaded
        }
      }
    }
  }

  /**
   * Crashes live region server {@code index} (in the order of {@code getLiveRegionServerThreads()}) the way
   * {@code kill -9} would: G-Store on it stops dead first (no drain, no shipping, no datagrams, WAL files left
   * open as they are), then HBase aborts the server, declares it dead and reassigns its regions. Returns the dead
   * server's name once no region is in transition.
   */
  public ServerName crashRegionServer(int index) throws IOException {
    return crashRegionServers(index).get(0);
  }

  /**
   * Crashes several live region servers at once, as {@link #crashRegionServer} crashes one ({@code indexes} in
   * the order of {@code getLiveRegionServerThreads()} before any of them dies). Returns their names once no region
   * is in transition.
   */
  public java.util.List<ServerName> crashRegionServers(int... indexes) throws IOException {
    MiniHBaseCluster hbase = util.getMiniHBaseCluster();
    java.util.List<ServerName> names = new java.util.ArrayList<>();
    for (int index : indexes) {
      names.add(hbase.getLiveRegionServerThreads().get(index).getRegionServer().getServerName());
    }
    names.forEach(GStoreServers::crash);
    for (ServerName name : names) {
      hbase.killRegionServer(name);
    }
    for (ServerName name : names) {
      hbase.waitForRegionServerToStop(name, 60_000);
    }
    util.waitUntilNoRegionsInTransition(120_000);
    return names;
  }


  /**
   * Writes the cluster's configuration as an {@code hbase-site.xml}, for tools that take one (the {@code gstore}
   * command line, YCSB's {@code hbase.conf}); returns {@code file}.
   */
  public java.nio.file.Path writeSiteFile(java.nio.file.Path file) throws IOException {
    try (java.io.OutputStream out = java.nio.file.Files.newOutputStream(file)) {
      getConfiguration().writeXml(out);
    }
    return file;
  }

  @Override
  public void close() throws IOException {
    try {
      for (Connection c : userConnections) {
        c.close();
      }
      util.shutdownMiniCluster();
    } finally {
      keepTmpdirUsable();
      if (secure != null) {
        secure.close();
      }
    }
  }

  /**
   * HBase's testing utility points {@code java.io.tmpdir} into its own data directory, which its shutdown deletes.
   * Another cluster of this JVM that starts a server afterwards (Jetty makes its temp directory there) would fail
   * with "Parent for temp dir not configured correctly": point it back at a directory that exists.
   */
  private void keepTmpdirUsable() {
    if (!new java.io.File(System.getProperty(TMPDIR)).isDirectory()) {
      System.setProperty(TMPDIR, tmpdirBefore != null && new java.io.File(tmpdirBefore).isDirectory()
          ? tmpdirBefore : JVM_TMPDIR);
    }
  }

  /** A row key of {@code table}, for tests. */
  public static RowKey row(TableName table, String row) {
    return RowKey.of(table, row.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
