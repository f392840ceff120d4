package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.zookeeper.ZKConfig;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreAdmin;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupInfo;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.RowGroupedException;
import org.gstore.client.Transaction;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.Message;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.transport.PeerRegistry;
import org.gstore.recovery.hbase.OutcomeTable;
import org.gstore.testing.security.KerberosRealm;
import org.gstore.testing.security.SecureMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * G-Store on a Kerberized cluster ({@link GStoreMiniCluster#startSecure}): HDFS, ZooKeeper (SASL) and HBase
 * authenticate every caller with Kerberos, the AccessController checks them, RPC is encrypted. Users log in from
 * keytabs; G-Store's servers work under the servers' own principal. Commits are held 3 s before shipping, so a crash
 * finds them in the WAL only. The crash comes last: it leaves one region server.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecureClusterIT {
  private static final TableName ACCOUNTS = TableName.valueOf("secure_accounts");
  private static final long OPENING = 1_000;
  private static GStoreMiniCluster cluster;
  private static User alice;
  private static User bob;

  @BeforeAll
  static void startSecureCluster() throws Throwable {
    cluster = GStoreMiniCluster.startSecure(2, Map.of(GStoreConfig.SHIPPER_DELAY_MS, "3000"));
    cluster.createTable(ACCOUNTS, new byte[][] {Accounts.CF}, TestRows.splits(4)).close();
    alice = cluster.secureMode().user("alice");
    bob = cluster.secureMode().user("bob");
    AccessControlClient.grant(cluster.getConnection(), ACCOUNTS, "alice", null, null, Permission.Action.READ,
        Permission.Action.WRITE);
    AccessControlClient.grant(cluster.getConnection(), ACCOUNTS, "bob", null, null, Permission.Action.READ);
    Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> as(alice, (c, t) -> {
      t.put(Accounts.balance(Bytes.toBytes("probe"), 0));
      return true;
    }) && as(bob, (c, t) -> t.get(new Get(Bytes.toBytes("probe"))) != null));
    try (Table table = cluster.getConnection().getTable(ACCOUNTS)) {
      for (byte[] row : TestRows.rows(0, 40)) {
        table.put(Accounts.balance(row, OPENING));
      }
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Runs {@code action} as {@code user}, over a connection and a G-Store client of the user's own. */
  private interface AsUser<T> {
    T run(GStoreClient client, Table table) throws Exception;
  }

  private static <T> T as(User user, AsUser<T> action) throws Exception {
    return user.runAs((PrivilegedExceptionAction<T>) () -> {
      try (Connection connection = ConnectionFactory.createConnection(cluster.getConfiguration(), user);
          GStoreClient client = GStoreClient.create(connection); Table table = connection.getTable(ACCOUNTS)) {
        return action.run(client, table);
      }
    });
  }

  @Test
  @Order(1)
  void aUserLoggedInFromAKeytabGroupsTransactsAndDeletesUnderHBasesPermissions() throws Exception {
    assertThat(UserGroupInformation.isSecurityEnabled()).isTrue();
    assertThat(alice.getUGI().getAuthenticationMethod())
        .isEqualTo(UserGroupInformation.AuthenticationMethod.KERBEROS);
    List<byte[]> rows = TestRows.rows(0, 10); // over every region, so over both servers
    GroupSpec spec = GroupSpec.builder().id("secure-game").leader(ACCOUNTS, rows.get(0)).members(ACCOUNTS, rows)
        .lease(Duration.ofMinutes(2)).build();
    assertThatThrownBy(() -> as(bob, (c, t) -> c.createGroup(spec))).as("READ does not let bob group rows")
        .isInstanceOf(AccessDeniedException.class).hasMessageContaining("bob");
    assertThat(StateTablesView.isGrouped(cluster, ACCOUNTS, rows.get(0))).as("a denied create holds nothing")
        .isFalse();

    org.gstore.client.GroupId id = as(alice, (c, t) -> {
      KeyGroup g = c.createGroup(spec);
      Accounts.transfer(g, ACCOUNTS, rows.get(1), rows.get(2), 25);
      assertThatThrownBy(() -> t.put(Accounts.balance(rows.get(3), 0))).as("plain writes stay fenced")
          .isInstanceOf(RowGroupedException.class);
      return g.id();
    });
    as(bob, (c, t) -> {
      try (Transaction txn = c.getGroup(id).begin()) {
        assertThat(Accounts.balance(txn.get(ACCOUNTS, new Get(rows.get(2))))).isEqualTo(OPENING + 25);
        txn.put(ACCOUNTS, Accounts.balance(rows.get(2), 0));
        assertThatThrownBy(txn::commit).as("READ does not let bob commit")
            .isInstanceOf(AccessDeniedException.class);
      }
      return null;
    });
    try (GStoreClient operator = GStoreClient.create(cluster.getConnection());
        GStoreAdmin admin = operator.admin()) {
      assertThat(admin.listGroups()).extracting(GroupInfo::id).contains(id);
      assertThat(admin.recoveryStatus()).isNotNull();
    }
    try (Table outcomes = cluster.getConnection().getTable(OutcomeTable.NAME)) {
      // the shipper writes it before the commit's writes, under the servers' principal
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
        try (ResultScanner scanner = outcomes.getScanner(new Scan())) {
          return scanner.next() != null;
        }
      });
    }
    as(alice, (c, t) -> {
      c.getGroup(id).delete();
      assertThat(Accounts.balance(t.get(new Get(rows.get(1))))).isEqualTo(OPENING - 25);
      assertThat(Accounts.balance(t.get(new Get(rows.get(2))))).isEqualTo(OPENING + 25);
      t.put(Accounts.balance(rows.get(3), OPENING)); // released: plain writes pass again
      return null;
    });
  }

  /** API.md's names: a connection per user, used as any HBase connection (no runAs around it). */
  @Test
  @Order(1)
  void connectAsGivesEachUserAConnectionOfItsOwn() throws Exception {
    Connection asAlice = cluster.connectAs("alice");
    Connection asBob = cluster.connectAs("bob");
    List<byte[]> rows = TestRows.rows(40, 4); // no balance yet: rows of no other test
    GroupSpec spec = GroupSpec.builder().id("connect-as").leader(ACCOUNTS, rows.get(0)).members(ACCOUNTS, rows)
        .build();
    try (GStoreClient bobs = GStoreClient.create(asBob)) {
      assertThatThrownBy(() -> bobs.createGroup(spec)).as("bob may only read").isInstanceOf(AccessDeniedException.class)
          .hasMessageContaining("bob");
    }
    try (GStoreClient alices = GStoreClient.create(asAlice); Table table = asAlice.getTable(ACCOUNTS)) {
      KeyGroup g = alices.createGroup(spec);
      Accounts.transfer(g, ACCOUNTS, rows.get(1), rows.get(2), 5);
      g.delete();
      assertThat(Accounts.balance(table.get(new Get(rows.get(2))))).isEqualTo(5);
    }
    assertThat(asAlice.isClosed()).as("a connection the test did not close stays open until the cluster closes")
        .isFalse();
  }

  @Test
  @Order(2)
  void aGroupWhoseClientWentAwayLapsesAtTheEndOfItsLease() throws Exception {
    List<byte[]> rows = TestRows.rows(10, 4);
    as(alice, (c, t) -> c.createGroup(GroupSpec.builder().id("forgotten").members(ACCOUNTS, rows)
        .lease(Duration.ofSeconds(3)).build()));
    // the client closed without deleting it: the leader deletes it once its lease ran out
    TestRows.awaitFree(cluster, ACCOUNTS, rows);
    as(alice, (c, t) -> {
      t.put(Accounts.balance(rows.get(0), OPENING));
      return null;
    });
  }

  @Test
  @Order(3)
  void datagramsOnTheWireShowNoRowKeyNorGroupName() throws Exception {
    List<byte[]> rows = TestRows.rows(20, 10);
    List<DatagramTap> taps = new ArrayList<>();
    try (ZooKeeper hbase = TestZooKeeper.session(cluster.getConfiguration())) {
      try {
        for (String peer : hbase.getChildren(peersPath(), false)) {
          taps.add(DatagramTap.on(hbase, peersPath() + "/" + peer));
        }
        as(alice, (c, t) -> {
          c.createGroup(GroupSpec.builder().id("whispered-name").members(ACCOUNTS, rows).build()).delete();
          return null;
        });
      } finally {
        for (DatagramTap tap : taps) {
          tap.close(); // the peers' own addresses back, whatever happened: later tests need them
        }
      }
    }
    List<byte[]> frames = new ArrayList<>();
    taps.forEach(tap -> frames.addAll(tap.captured()));
    DatagramCodec codec = new DatagramCodec(cluster.clusterSecret(), 60_000);
    List<Message> messages = new ArrayList<>();
    java.util.Set<String> senders = new java.util.HashSet<>();
    for (byte[] frame : frames) {
      assertThat(new String(frame, 0, 2, StandardCharsets.ISO_8859_1)).as("an encrypted frame").isEqualTo("GP");
      String wire = new String(frame, StandardCharsets.ISO_8859_1);
      assertThat(wire).doesNotContain("whispered-name").doesNotContain(ACCOUNTS.getNameAsString());
      for (byte[] row : rows) {
        assertThat(wire).doesNotContain(Bytes.toString(row));
      }
      Datagram d = codec.decode(frame, 0, frame.length);
      messages.addAll(d.messages());
      if (d.messages().stream().anyMatch(m -> m.group().id().name().equals("whispered-name"))) {
        senders.add(d.from().value());
      }
    }
    assertThat(messages).as("the tap saw the create's and the delete's messages, which name the rows")
        .anyMatch(m -> m.group().id().name().equals("whispered-name"));
    assertThat(senders).as("from both servers: the leader's joins and deletes, the member server's answers")
        .hasSize(2);
  }

  @Test
  @Order(4)
  void aPeerThatSendsInClearIsTakenButCounted() throws Exception {
    long before = receivedInClear();
    Datagram clear = new Datagram(new org.gstore.common.protocol.NodeId("a-peer-left-on-integrity"),
        new org.gstore.common.protocol.NodeId("nobody"), List.of(), List.of());
    byte[] frame = new DatagramCodec(cluster.clusterSecret(), 60_000).encode(clear);
    try (ZooKeeper hbase = TestZooKeeper.session(cluster.getConfiguration());
        java.net.DatagramSocket socket = new java.net.DatagramSocket()) {
      String peer = hbase.getChildren(peersPath(), false).get(0);
      String hostPort = new String(hbase.getData(peersPath() + "/" + peer, false, null), StandardCharsets.UTF_8);
      int colon = hostPort.lastIndexOf(':');
      socket.send(new java.net.DatagramPacket(frame, frame.length, new java.net.InetSocketAddress(
          hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)))));
    }
    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> receivedInClear() > before);
  }

  private static long receivedInClear() {
    long total = 0;
    for (org.apache.hadoop.hbase.metrics.MetricRegistry registry
        : org.apache.hadoop.hbase.metrics.MetricRegistries.global().getMetricRegistries()) {
      if (registry.getMetricRegistryInfo().getMetricsJmxContext().contains("GStoreRegionCoprocessor")) {
        total += registry.get("datagramsReceivedInClear")
            .map(m -> ((org.apache.hadoop.hbase.metrics.Counter) m).getCount()).orElse(0L);
      }
    }
    return total;
  }

  @Test
  @Order(5)
  void onlyHBaseMayCreateChangeOrDeleteGStoresZnodes() throws Exception {
    String persisted = gstorePath() + "/persisted";
    String aClaim;
    try (ZooKeeper hbase = TestZooKeeper.session(cluster.getConfiguration())) {
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !children(hbase, persisted).isEmpty());
      aClaim = persisted + "/" + hbase.getChildren(persisted, false).get(0);
      assertThat(hbase.getACL(aClaim, null)).containsExactlyInAnyOrder(
          new ACL(ZooDefs.Perms.ALL, new Id("sasl", "hbase")), new ACL(ZooDefs.Perms.ALL, new Id("sasl",
              SecureMode.ADMIN)), new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
    }
    cluster.secureMode().jaas().put("Alice", KerberosRealm.keytabLogin(
        cluster.secureMode().realm().userPrincipal("alice-zk"), cluster.secureMode().realm().keytab("alice-zk",
            "alice-zk")));
    ZKClientConfig asAlice = new ZKClientConfig();
    asAlice.setProperty(ZKClientConfig.LOGIN_CONTEXT_NAME_KEY, "Alice");
    ZKClientConfig anonymous = new ZKClientConfig();
    anonymous.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
    for (ZKClientConfig who : List.of(asAlice, anonymous)) {
      try (ZooKeeper zk = session(who)) {
        assertThat(zk.whoAmI()).as("who ZooKeeper takes the session for").extracting(c -> c.getAuthScheme()
            + ":" + c.getUser()).contains(who == asAlice ? "sasl:alice-zk" : "ip:127.0.0.1");
        assertThat(zk.getData(aClaim, false, null)).as("claims stay readable, for gstore status").isNotNull();
        assertThatThrownBy(() -> zk.setData(aClaim, "forged=9223372036854775807".getBytes(StandardCharsets.UTF_8),
            -1)).isInstanceOf(KeeperException.NoAuthException.class);
        assertThatThrownBy(() -> zk.create(persisted + "/forged", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.PERSISTENT)).isInstanceOf(KeeperException.NoAuthException.class);
        assertThatThrownBy(() -> zk.delete(aClaim, -1)).isInstanceOf(KeeperException.NoAuthException.class);
        assertThatThrownBy(() -> zk.create(peersPath() + "/forged-peer", "127.0.0.1:1".getBytes(
            StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL))
            .isInstanceOf(KeeperException.NoAuthException.class);
      }
    }
  }

  @Test
  @Order(6)
  void aServerWhoseZooKeeperLoginFailsSaysSoAndDoesNotStartGStore() throws Exception {
    cluster.secureMode().jaas().put("Broken", KerberosRealm.keytabLogin(
        cluster.secureMode().realm().servicePrincipal("hbase"), new java.io.File("/nonexistent.keytab")));
    Configuration noKeytab = new Configuration(cluster.getConfiguration());
    noKeytab.set(HConstants.ZK_CFG_PROPERTY_PREFIX + ZKClientConfig.LOGIN_CONTEXT_NAME_KEY, "Broken");
    // a login that works, for a ZooKeeper principal the KDC does not know: refused once connected
    Configuration wrongServer = new Configuration(cluster.getConfiguration());
    wrongServer.set(HConstants.ZK_CFG_PROPERTY_PREFIX + ZKClientConfig.ZOOKEEPER_SERVER_PRINCIPAL,
        cluster.secureMode().realm().servicePrincipal("nosuchservice"));
    for (Configuration conf : List.of(noKeytab, wrongServer)) {
      try (PeerRegistry peers = new PeerRegistry(conf)) {
        assertThatThrownBy(() -> peers.register(new org.gstore.common.protocol.NodeId("broken,1,1"),
            new java.net.InetSocketAddress("127.0.0.1", 1))).isInstanceOf(IOException.class)
            .hasMessageContaining("could not authenticate to ZooKeeper").hasMessageContaining("JAAS")
            .hasMessageContaining("keytab");
      }
    }
    try (ZooKeeper hbase = TestZooKeeper.session(cluster.getConfiguration())) {
      assertThat(hbase.exists(peersPath() + "/broken,1,1", false)).as("published nothing").isNull();
    }
  }

  @Test
  @Order(7)
  void aCrashedLeadersAcknowledgedCommitsAreReplayedFromItsWalOnKerberizedHdfs() throws Exception {
    List<byte[]> rows = TestRows.rows(30, 10);
    as(alice, (c, t) -> {
      KeyGroup g = c.createGroup(GroupSpec.builder().id("crash-survivor").leader(ACCOUNTS, rows.get(0))
          .members(ACCOUNTS, rows).build());
      for (int n = 1; n <= 5; n++) {
        Accounts.transfer(g, ACCOUNTS, rows.get(n), rows.get(n + 4), 10L * n);
      }
      return null;
    });
    ServerName leader = TestRegions.hostOf(cluster, ACCOUNTS, rows.get(0));
    cluster.crashRegionServer(TestRegions.serverIndex(cluster, leader)); // the commits were not shipped yet

    as(alice, (c, t) -> {
      KeyGroup g = c.getGroup(org.gstore.client.GroupId.of("crash-survivor",
          org.gstore.client.RowKey.of(ACCOUNTS, rows.get(0))));
      g.delete();
      long sum = 0;
      for (byte[] row : rows) {
        sum += Accounts.balance(t.get(new Get(row)));
      }
      assertThat(sum).as("money conserved").isEqualTo(OPENING * rows.size());
      assertThat(Accounts.balance(t.get(new Get(rows.get(9))))).as("the last acknowledged transfer")
          .isEqualTo(OPENING + 50);
      return null;
    });
  }

  private static String gstorePath() {
    return cluster.getConfiguration().get(HConstants.ZOOKEEPER_ZNODE_PARENT,
        HConstants.DEFAULT_ZOOKEEPER_ZNODE_PARENT) + "/gstore";
  }

  private static String peersPath() {
    return gstorePath() + "/peers";
  }

  private static List<String> children(ZooKeeper zk, String path) {
    try {
      return zk.getChildren(path, false);
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (KeeperException | InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /** A session of {@code config}'s identity, once it is authenticated (or connected, without SASL). */
  private static ZooKeeper session(ZKClientConfig config) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    Watcher.Event.KeeperState usable = config.isSaslClientEnabled() ? Watcher.Event.KeeperState.SaslAuthenticated
        : Watcher.Event.KeeperState.SyncConnected;
    ZooKeeper zk = new ZooKeeper(ZKConfig.getZKQuorumServersString(cluster.getConfiguration()), 30_000, e -> {
      if (e.getState() == usable) {
        connected.countDown();
      }
    }, config);
    assertThat(connected.await(30, TimeUnit.SECONDS)).isTrue();
    return zk;
  }
}
