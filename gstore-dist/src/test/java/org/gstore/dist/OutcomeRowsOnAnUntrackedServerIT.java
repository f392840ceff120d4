package org.gstore.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.CommitRequest;
import org.gstore.common.wire.generated.GStoreProtos.CommitResponse;
import org.gstore.common.wire.generated.GStoreProtos.GStoreTxnService;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.GStoreProtos.TxnOutcomeProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.gstore.testing.process.ClusterLayout;
import org.gstore.testing.process.ProcessCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 35, item 1, on a cluster of separate JVMs: {@code gstore:outcomes} alone on a region server that hosts no
 * G-Store region, so no claim of G-Store ever covers what that server persisted. Commits whose answers were lost are
 * shipped there (their outcome rows), their leader forgets them, that server is killed with {@code SIGKILL}, the
 * leader region moves, and the commits are sent again byte for byte, as a client whose answers were lost retries:
 * each must get its first outcome, and none may be applied a second time (over the newer commits).
 */
class OutcomeRowsOnAnUntrackedServerIT {
  private static final Path DIR = Path.of("target", "it-outcomes").toAbsolutePath();
  private static final TableName TABLE = TableName.valueOf("lost_answers");
  private static final byte[] CF = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static final byte[] LEADER = Bytes.toBytes("a");
  private static final byte[] ROW = Bytes.toBytes("b");
  private static final int COMMITS = 10;
  private static ProcessCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    String home = System.getProperty("gstore.home");
    assertThat(home).as("gstore.home (set by the failsafe configuration)").isNotNull();
    ProcessClusterIT.deleteRecursively(DIR);
    // heartbeats every second, so that claims soon cover what the tracked servers persisted; asynchronous WAL
    // edits synced only when something asks, so that an outcome row written without a sync would die with its server
    cluster = ProcessCluster.create(new ClusterLayout(DIR, Path.of(home), 3, 24_000,
        Map.of("gstore.recovery.heartbeat.ms", "1000", "hbase.regionserver.optionallogflushinterval", "600000")),
        System.out);
    cluster.start();
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.stop();
    }
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void commitsRetriedAfterTheirOutcomeServerDiedAreAnsweredOnceAndAppliedOnce() throws Exception {
    try (Connection connection = ConnectionFactory.createConnection(cluster.clientConfiguration());
        Admin admin = connection.getAdmin(); GStoreClient client = GStoreClient.create(connection)) {
      admin.balancerSwitch(false, true);
      admin.createTable(TableDescriptorBuilder.newBuilder(TABLE).setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF))
          .build());
      ServerName leaderHost = serverOf(admin, "rs1");
      ServerName nextHost = serverOf(admin, "rs2");
      ServerName outcomesHost = serverOf(admin, "rs3");
      // rs3 keeps gstore:outcomes and nothing else: G-Store's coprocessor stands aside on its namespace's regions
      for (RegionInfo region : admin.getRegions(outcomesHost)) {
        admin.move(region.getEncodedNameAsBytes(), leaderHost);
      }
      RegionInfo outcomes = admin.getRegions(TableName.valueOf("gstore", "outcomes")).get(0);
      admin.move(outcomes.getEncodedNameAsBytes(), outcomesHost);
      RegionInfo lostAnswers = admin.getRegions(TABLE).get(0);
      admin.move(lostAnswers.getEncodedNameAsBytes(), leaderHost);
      assertThat(admin.getRegions(outcomesHost)).extracting(RegionInfo::getTable)
          .containsExactly(TableName.valueOf("gstore", "outcomes"));

      KeyGroup group = client.createGroup(GroupSpec.builder().id("retried").leader(TABLE, LEADER)
          .member(TABLE, ROW).build());
      List<CommitRequest> sent = new ArrayList<>();
      List<Long> firstAnswers = new ArrayList<>();
      try (Table table = connection.getTable(TABLE)) {
        for (int i = 1; i <= COMMITS; i++) { // blind writes, each over the one before: their answers are "lost"
          CommitRequest commit = blindWrite("lost-answer-" + i, "t" + i);
          CommitResponse first = txns(table).commit(null, commit);
          assertThat(first.getOutcome()).isEqualTo(TxnOutcomeProto.COMMITTED);
          sent.add(commit);
          firstAnswers.add(first.getCommitTs());
        }
        // shipped, outcome rows included, and claimed by the tracked servers: the leader forgets them (JMX shows
        // a gauge up to 10 s old, so the first look is after that)
        Awaitility.await("the leader's shipments persisted and forgotten").atMost(Duration.ofMinutes(1))
            .pollDelay(Duration.ofSeconds(12)).pollInterval(Duration.ofSeconds(1))
            .until(() -> shipperLag("rs1") == 0);

        assertThat(cluster.kill("rs3", 9)).isTrue();
        Awaitility.await("gstore:outcomes served again").atMost(Duration.ofMinutes(3))
            .pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
            .until(() -> reassigned(connection, outcomesHost));
        admin.move(lostAnswers.getEncodedNameAsBytes(), nextHost); // the next leader remembers none of them

        for (int i = 0; i < COMMITS; i++) {
          CommitResponse retried = txns(table).commit(null, sent.get(i));
          assertThat(retried.getOutcome()).as("retry of commit %d", i + 1).isEqualTo(TxnOutcomeProto.COMMITTED);
          assertThat(retried.getCommitTs()).as("retry of commit %d: the first outcome, not a second commit", i + 1)
              .isEqualTo(firstAnswers.get(i));
        }
        group.delete();
        assertThat(Bytes.toString(table.get(new Get(ROW)).getValue(CF, Q)))
            .as("no commit applied again over the newer ones").isEqualTo("t" + COMMITS);
      }
    }
  }

  private static CommitRequest blindWrite(String txnId, String value) {
    return CommitRequest.newBuilder().setName("retried").setLeader(key(LEADER)).setTxnId(txnId)
        .addWrites(RowWriteProto.newBuilder().setKey(key(ROW)).addColumns(ColumnProto.newBuilder()
            .setFamily(ByteString.copyFrom(CF)).setQualifier(ByteString.copyFrom(Q))
            .setValue(ByteString.copyFrom(Bytes.toBytes(value)))))
        .build();
  }

  private static GStoreTxnService.BlockingInterface txns(Table table) {
    return GStoreTxnService.newBlockingStub(table.coprocessorService(LEADER));
  }

  private static KeyProto key(byte[] row) {
    return KeyProto.newBuilder().setTable(TABLE.getNameAsString()).setRow(ByteString.copyFrom(row)).build();
  }

  private static ServerName serverOf(Admin admin, String role) throws IOException {
    int rpc = cluster.layout().ports(role).get("rpc");
    return admin.getRegionServers().stream().filter(s -> s.getPort() == rpc).findFirst()
        .orElseThrow(() -> new AssertionError(role + " is not serving"));
  }

  /** Whether {@code gstore:outcomes} is open on a server other than {@code dead}. */
  private static boolean reassigned(Connection connection, ServerName dead) throws IOException {
    try (var locator = connection.getRegionLocator(TableName.valueOf("gstore", "outcomes"))) {
      ServerName now = locator.getRegionLocation(new byte[0], true).getServerName();
      return !now.getAddress().equals(dead.getAddress());
    }
  }

  /** The role's {@code shipperLagRecords} gauge, read from its JMX servlet: commits not yet persisted. */
  private static long shipperLag(String role) throws Exception {
    int infoPort = cluster.layout().ports(role).get("info");
    URI uri = URI.create("http://127.0.0.1:" + infoPort + "/jmx?qry=Hadoop:service=HBase,name=RegionServer,"
        + "sub=Coprocessor.Region.CP_org.gstore.coprocessor.GStoreRegionCoprocessor");
    String jmx = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    Matcher m = Pattern.compile("(?i)\"shipperLagRecords[^\"]*\"\\s*:\\s*(\\d+)").matcher(jmx);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }
}
