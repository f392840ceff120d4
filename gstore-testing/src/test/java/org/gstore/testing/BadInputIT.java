package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupCreationException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.Transaction;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.CommitRequest;
import org.gstore.common.wire.generated.GStoreProtos.CommitResponse;
import org.gstore.common.wire.generated.GStoreProtos.CreateGroupRequest;
import org.gstore.common.wire.generated.GStoreProtos.CreateGroupResponse;
import org.gstore.common.wire.generated.GStoreProtos.CreateModeProto;
import org.gstore.common.wire.generated.GStoreProtos.GStoreService;
import org.gstore.common.wire.generated.GStoreProtos.GStoreTxnService;
import org.gstore.common.wire.generated.GStoreProtos.OutcomeProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.GStoreProtos.TxnOutcomeProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bad input gets a clear error, changes nothing, and stalls nobody: through the official client, and through raw
 * endpoint calls that the client would never make. After each, the server still creates groups and ships commits.
 */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BadInputIT {
  private static final TableName ROWS = TableName.valueOf("bad_input_rows");
  private static final byte[] CF = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static GStoreMiniCluster cluster;
  private static GStoreClient client;
  private static Table table;

  @BeforeAll
  static void setUp(GStoreMiniCluster c) throws Exception {
    cluster = c;
    table = cluster.createTable(ROWS, new byte[][] {CF}, TestRows.splits(3));
    client = GStoreClient.create(cluster.getConnection());
  }

  @AfterAll
  static void tearDown() throws Exception {
    client.close();
    table.close();
  }

  /** Every region server still forms groups over rows on all servers, commits, ships and releases them. */
  private static void serversStillWork(int firstRow) throws Exception {
    List<byte[]> rows = TestRows.rows(firstRow, 10);
    for (byte[] leader : List.of(rows.get(0), rows.get(3), rows.get(6))) {
      KeyGroup g = client.createGroup(GroupSpec.builder().leader(ROWS, leader).members(ROWS, rows).build());
      g.transact(txn -> {
        txn.put(ROWS, new Put(leader).addColumn(CF, Q, Bytes.toBytes("ok")));
        return null;
      });
      g.delete();
      assertThat(Bytes.toString(table.get(new Get(leader)).getValue(CF, Q))).isEqualTo("ok");
    }
  }

  @Test
  void aCommitToAColumnFamilyTheTableLacksIsRefusedAndNothingIsWritten() throws Exception {
    byte[] row = TestRows.row(10);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("typo").leader(ROWS, row)
        .member(ROWS, TestRows.row(11)).build());
    try (Transaction txn = g.begin()) {
      txn.put(ROWS, new Put(row).addColumn(CF, Q, Bytes.toBytes("kept")));
      txn.put(ROWS, new Put(row).addColumn(Bytes.toBytes("no_such_family"), Q, Bytes.toBytes("x")));
      assertThatThrownBy(txn::commit).isInstanceOf(NoSuchColumnFamilyException.class)
          .hasMessageContaining("no_such_family");
    }
    try (Transaction txn = g.begin()) {
      assertThat(txn.get(ROWS, new Get(row)).isEmpty()).as("nothing of the refused commit").isTrue();
    }
    g.delete();
    assertThat(table.get(new Get(row)).isEmpty()).isTrue();
    serversStillWork(100);
  }

  @Test
  void aValueAboveHBasesCellLimitIsRefusedBeforeItIsAcknowledged() throws Exception {
    byte[] row = TestRows.row(20);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("huge-value").leader(ROWS, row).build());
    try (Transaction txn = g.begin()) {
      txn.put(ROWS, new Put(row).addColumn(CF, Q, new byte[10 * 1024 * 1024 + 1]));
      assertThatThrownBy(txn::commit).isInstanceOf(DoNotRetryIOException.class)
          .hasMessageContaining("hbase.server.keyvalue.maxsize");
    }
    g.delete();
    assertThat(table.get(new Get(row)).isEmpty()).isTrue();
  }

  @Test
  void aMemberStampedFarInTheFutureGetsAClearErrorInsteadOfAStuckServer() throws Exception {
    byte[] row = TestRows.row(60);
    long future = System.currentTimeMillis() + TimeUnit.HOURS.toMillis(1);
    table.put(new Put(row).addColumn(CF, Q, future, Bytes.toBytes("from the future")));
    KeyGroup g = client.createGroup(GroupSpec.builder().id("time-traveller").leader(ROWS, row).build());
    assertThatThrownBy(() -> g.transact(txn -> txn.get(ROWS, new Get(row))))
        .isInstanceOf(DoNotRetryIOException.class).hasMessageContaining("gstore.txn.max.future.ms");
    g.delete(); // no commit was made, so nothing to wait for
    table.delete(new org.apache.hadoop.hbase.client.Delete(row));
  }

  @Test
  void oversizedGroupNamesAndRowsAreRefusedWithTheirLimitAndServersGoOn() throws Exception {
    String longName = "g".repeat(40_000);
    assertThatThrownBy(() -> client.createGroup(GroupSpec.builder().id(longName).leader(ROWS, TestRows.row(30))
        .build())).isInstanceOf(GroupCreationException.class).hasMessageContaining("gstore.group.max.id.chars");
    byte[] longRow = Bytes.add(TestRows.row(31), new byte[32_700]);
    assertThatThrownBy(() -> client.createGroup(GroupSpec.builder().leader(ROWS, TestRows.row(32))
        .member(ROWS, longRow).build())).isInstanceOf(GroupCreationException.class)
        .hasMessageContaining("gstore.group.max.row.bytes");
    serversStillWork(200);
  }

  @Test
  void whenAnAtomicCreateFailsNoneOfItsRowsIsHeld() throws Exception {
    List<byte[]> first = TestRows.rows(300, 10);
    List<byte[]> overlapping = TestRows.rows(305, 10);
    KeyGroup holder = client.createGroup(GroupSpec.builder().id("holder").members(ROWS, first).build());
    for (int attempt = 0; attempt < 5; attempt++) {
      assertThatThrownBy(() -> client.createGroup(GroupSpec.builder().leader(ROWS, overlapping.get(9))
          .members(ROWS, overlapping).build())).isInstanceOf(GroupCreationException.class);
      for (byte[] row : overlapping.subList(5, 10)) { // not in the holder: free the moment the create throws
        table.put(new Put(row).addColumn(CF, Q, Bytes.toBytes("plain-" + attempt)));
      }
    }
    holder.delete();
    for (byte[] row : first) { // and when delete() returns, every member takes plain writes
      table.put(new Put(row).addColumn(CF, Q, Bytes.toBytes("plain")));
    }
  }

  // ---- raw endpoint calls, as a client other than ours could make them

  private static KeyProto key(String table, byte[] row) {
    return KeyProto.newBuilder().setTable(table).setRow(ByteString.copyFrom(row)).build();
  }

  private static CommitResponse rawCommit(KeyGroup g, CommitRequest.Builder request) throws Exception {
    CommitRequest built = request.setName(g.id().name())
        .setLeader(key(ROWS.getNameAsString(), g.leader().row())).build();
    return GStoreTxnService.newBlockingStub(table.coprocessorService(g.leader().row())).commit(null, built);
  }

  private static RowWriteProto write(String tableName, byte[] row, String value) {
    return RowWriteProto.newBuilder().setKey(key(tableName, row)).addColumns(ColumnProto.newBuilder()
        .setFamily(ByteString.copyFrom(CF)).setQualifier(ByteString.copyFrom(Q))
        .setValue(ByteString.copyFromUtf8(value))).build();
  }

  @Test
  void malformedRawCommitsGetClearErrorsAndChangeNothing() throws Exception {
    byte[] row = TestRows.row(40);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("raw").leader(ROWS, row).build());
    String name = ROWS.getNameAsString();
    assertThatThrownBy(() -> rawCommit(g, CommitRequest.newBuilder().setTxnId("").addWrites(write(name, row, "a"))))
        .hasStackTraceContaining("transaction id");
    assertThatThrownBy(() -> rawCommit(g, CommitRequest.newBuilder().setTxnId("x".repeat(100_000))
        .addWrites(write(name, row, "a")))).hasStackTraceContaining("transaction id");
    assertThatThrownBy(() -> rawCommit(g, CommitRequest.newBuilder().setTxnId("twice")
        .addWrites(write(name, row, "a")).addWrites(write(name, row, "b")))).hasStackTraceContaining("written twice");
    RowWriteProto twoColumns = write(name, row, "a").toBuilder().addColumns(write(name, row, "b").getColumns(0))
        .build();
    assertThatThrownBy(() -> rawCommit(g, CommitRequest.newBuilder().setTxnId("cols").addWrites(twoColumns)))
        .hasStackTraceContaining("written twice");
    assertThatThrownBy(() -> rawCommit(g, CommitRequest.newBuilder().setTxnId("empty-row")
        .addWrites(write(name, new byte[0], "a")))).hasStackTraceContaining("empty row");
    try (Transaction txn = g.begin()) {
      assertThat(txn.get(ROWS, new Get(row)).isEmpty()).isTrue();
    }
    // the table spelled with its namespace is the same table
    CommitResponse ok = rawCommit(g, CommitRequest.newBuilder().setTxnId("namespaced")
        .addWrites(write("default:" + name, row, "spelled")));
    assertThat(ok.getOutcome()).isEqualTo(TxnOutcomeProto.COMMITTED);
    try (Transaction txn = g.begin()) {
      Result r = txn.get(ROWS, new Get(row));
      assertThat(Bytes.toString(r.getValue(CF, Q))).isEqualTo("spelled");
    }
    g.delete();
    assertThat(Bytes.toString(table.get(new Get(row)).getValue(CF, Q))).isEqualTo("spelled");
  }

  @Test
  void aRawCreateNamingTheDefaultNamespaceFormsTheSameGroupAsThePlainName() throws Exception {
    byte[] leader = TestRows.row(50);
    CreateGroupRequest request = CreateGroupRequest.newBuilder().setRequestId("ns-create").setName("ns")
        .setLeader(key("default:" + ROWS.getNameAsString(), leader))
        .addMembers(key(ROWS.getNameAsString(), TestRows.row(51)))
        .addMembers(key("default:" + ROWS.getNameAsString(), TestRows.row(51)))
        .setMode(CreateModeProto.ATOMIC).build();
    CreateGroupResponse response = GStoreService.newBlockingStub(table.coprocessorService(leader))
        .createGroup(null, request);
    assertThat(response.getOutcome()).isEqualTo(OutcomeProto.CREATED);
    assertThat(response.getGroup().getMembersCount()).as("one row, however spelled, plus the leader").isEqualTo(2);
    KeyGroup g = client.getGroup(org.gstore.client.GroupId.of("ns", org.gstore.client.RowKey.of(ROWS, leader)));
    assertThat(g.members()).hasSize(2);
    g.transact(txn -> {
      txn.put(ROWS, new Put(leader).addColumn(CF, Q, Bytes.toBytes("v")));
      return null;
    });
    g.delete();
  }

  /** The chaos runs' test hook: a server of a cluster that did not set it refuses, saying why, and drops nothing. */
  @Test
  void aTestFaultIsRefusedByAServerWithoutTheTestKey() throws Exception {
    org.gstore.common.wire.generated.GStoreProtos.TestFaultRequest fault =
        org.gstore.common.wire.generated.GStoreProtos.TestFaultRequest.newBuilder().addDropTo("any-peer")
            .setSkewMs(20_000).setDurationMs(60_000).build();
    byte[] row = TestRows.row(400);
    assertThatThrownBy(() -> GStoreService.newBlockingStub(table.coprocessorService(row)).testFault(null, fault))
        .hasStackTraceContaining("gstore.test.faults.enabled").hasStackTraceContaining("test clusters only");
    serversStillWork(400); // rows no other test here uses (row 60 has a cell stamped an hour ahead)
  }
}
