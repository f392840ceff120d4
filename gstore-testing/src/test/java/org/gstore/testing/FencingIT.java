package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.MultiRowMutationEndpoint;
import org.apache.hadoop.hbase.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.protobuf.generated.ClientProtos.MutationProto.MutationType;
import org.apache.hadoop.hbase.protobuf.generated.MultiRowMutationProtos.MultiRowMutationService;
import org.apache.hadoop.hbase.protobuf.generated.MultiRowMutationProtos.MutateRowsRequest;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.RowGroupedException;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.OwnerToken;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/** Every way a plain client can write a row is fenced while the row is in a group, and open again after. */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FencingIT {
  private static final TableName ACCOUNTS = TableName.valueOf("fencing_accounts");
  private static final byte[] CF = Bytes.toBytes("a");
  private static final byte[] Q = Bytes.toBytes("balance");
  private static GStoreClient client;
  private static Table table;
  private static OwnerToken tokens;
  /** One region, HBase's MultiRowMutationEndpoint, and mini-batches of two writes. */
  private static final TableName PATHS = TableName.valueOf("fencing_paths");

  @BeforeAll
  static void setUp(GStoreMiniCluster cluster) throws Exception {
    table = cluster.createTable(ACCOUNTS, new byte[][] {CF}, TestRows.splits(3));
    client = GStoreClient.create(cluster.getConnection());
    tokens = new OwnerToken(cluster.clusterSecret());
    cluster.createTable(PATHS, new byte[][] {CF}, null).close();
    try (Admin admin = cluster.getConnection().getAdmin()) {
      admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(PATHS))
          .setCoprocessor(MultiRowMutationEndpoint.class.getName())
          .setValue(HRegion.HBASE_REGIONSERVER_MINIBATCH_SIZE, "2").build());
    }
  }

  @AfterAll
  static void tearDown() throws Exception {
    client.close();
    table.close();
  }

  private static Map<String, Executable> everyWriteOf(byte[] row) {
    byte[] other = TestRows.row(999);
    return Map.of(
        "put", () -> table.put(new Put(row).addColumn(CF, Q, Bytes.toBytes(1L))),
        "delete", () -> table.delete(new Delete(row)),
        "increment", () -> table.increment(new Increment(row).addColumn(CF, Q, 1)),
        "append", () -> table.append(new Append(row).addColumn(CF, Bytes.toBytes("log"), Bytes.toBytes("x"))),
        "checkAndMutate", () -> table.checkAndMutate(CheckAndMutate.newBuilder(row).ifNotExists(CF, Q)
            .build(new Put(row).addColumn(CF, Q, Bytes.toBytes(2L)))),
        "mutateRow", () -> table.mutateRow(RowMutations.of(List.of(
            new Put(row).addColumn(CF, Q, Bytes.toBytes(3L)), new Delete(row).addColumns(CF, Bytes.toBytes("x"))))),
        "batch", () -> table.batch(List.<Row>of(new Put(other).addColumn(CF, Q, Bytes.toBytes(4L)),
            new Put(row).addColumn(CF, Q, Bytes.toBytes(5L))), new Object[2]),
        "putList", () -> table.put(List.of(new Put(row).addColumn(CF, Q, Bytes.toBytes(6L)))));
  }

  @Test
  void everyMutationTypeOnAGroupedRowIsRejectedNamingTheGroupAndWorksAfterDelete() throws Throwable {
    KeyGroup g = client.createGroup(GroupSpec.builder().id("vault")
        .members(ACCOUNTS, List.of(TestRows.row(1), TestRows.row(2), TestRows.row(5))).build());
    byte[] row = TestRows.row(2);
    table.get(new Get(row)); // reads are not fenced
    for (Map.Entry<String, Executable> write : everyWriteOf(row).entrySet()) {
      assertThatThrownBy(write.getValue()::execute).as(write.getKey())
          .satisfies(e -> assertThat(groupedCause(e)).as(write.getKey() + ": " + e).isNotNull()
              .extracting(Throwable::getMessage).asString().contains("vault@"));
    }
    assertThat(table.get(new Get(row)).isEmpty()).as("nothing was written").isTrue();

    g.delete();
    for (Map.Entry<String, Executable> write : everyWriteOf(row).entrySet()) {
      write.getValue().execute();
    }
  }

  @Test
  void onlyAnAuthenticTokenOfTheOwningGroupOpensTheRow(GStoreMiniCluster cluster) throws Exception {
    KeyGroup g = client.createGroup(GroupSpec.builder().id("shipper")
        .members(ACCOUNTS, List.of(TestRows.row(11), TestRows.row(12))).build());
    KeyGroup other = client.createGroup(GroupSpec.builder().id("other")
        .members(ACCOUNTS, List.of(TestRows.row(21))).build());
    GroupRef owner = refOf(cluster, "shipper");
    GroupRef notOwner = refOf(cluster, "other");
    byte[] row = TestRows.row(12);
    Key key = Key.of(ACCOUNTS.getNameAsString(), row);

    table.put(withToken(new Put(row).addColumn(CF, Q, Bytes.toBytes(7L)), tokens.sign(owner, key)));
    assertThat(Bytes.toLong(table.get(new Get(row)).getValue(CF, Q))).isEqualTo(7L);

    assertThatThrownBy(() -> table.put(withToken(new Put(row).addColumn(CF, Q, Bytes.toBytes(8L)),
        tokens.sign(notOwner, key)))).satisfies(e -> assertThat(groupedCause(e)).isNotNull());
    byte[] forged = new OwnerToken("not-the-cluster-secret!!".getBytes(StandardCharsets.UTF_8)).sign(owner, key);
    // a token that does not verify is refused, but not as a fencing decision (a replay never skips a commit for it)
    assertThatThrownBy(() -> table.put(withToken(new Put(row).addColumn(CF, Q, Bytes.toBytes(9L)), forged)))
        .hasStackTraceContaining("does not verify").satisfies(e -> assertThat(groupedCause(e)).isNull());
    byte[] forAnotherRow = tokens.sign(owner, Key.of(ACCOUNTS.getNameAsString(), TestRows.row(11)));
    assertThatThrownBy(() -> table.put(withToken(new Put(row).addColumn(CF, Q, Bytes.toBytes(10L)), forAnotherRow)))
        .hasStackTraceContaining("does not verify").satisfies(e -> assertThat(groupedCause(e)).isNull());
    assertThat(Bytes.toLong(table.get(new Get(row)).getValue(CF, Q))).isEqualTo(7L);

    g.delete();
    assertThatThrownBy(() -> table.put(withToken(new Put(row).addColumn(CF, Q, Bytes.toBytes(11L)),
        tokens.sign(owner, key)))).as("a deleted group's shipper cannot write a row that moved on")
        .satisfies(e -> assertThat(groupedCause(e)).isNotNull());
    other.delete();
  }

  @Test
  void aBatchTouchingOneGroupedRowWritesTheOtherRowsAndFailsOnlyThatOne() throws Exception {
    List<byte[]> rows = IntStream.range(0, 10).mapToObj(i -> TestRows.row(300 + 10 * i)).toList(); // one region
    byte[] grouped = rows.get(4);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("batch").members(ACCOUNTS, List.of(grouped)).build());
    List<Put> puts = rows.stream().map(r -> new Put(r).addColumn(CF, Q, Bytes.toBytes(42L))).toList();

    assertThatThrownBy(() -> table.put(puts)).isInstanceOfSatisfying(RetriesExhaustedWithDetailsException.class,
        e -> {
          assertThat(e.getNumExceptions()).as("only the grouped row's write fails").isEqualTo(1);
          assertThat(e.getRow(0).getRow()).isEqualTo(grouped);
          assertThat(groupedCause(e)).as(e.getCause(0).toString()).isNotNull();
        });
    for (byte[] row : rows) {
      assertThat(table.get(new Get(row)).isEmpty()).as(Bytes.toString(row)).isEqualTo(row == grouped);
    }
    g.delete();
  }

  /**
   * A plain batch that HBase cuts into mini-batches (two writes each on this table) fails exactly its grouped
   * writes, whichever mini-batches they fall in: none that is wholly refused fails the writes of the others, applied
   * before it or not yet tried.
   */
  @Test
  void aBatchCutIntoMiniBatchesFailsExactlyItsGroupedWrites(GStoreMiniCluster cluster) throws Exception {
    List<byte[]> rows = IntStream.range(0, 6).mapToObj(i -> TestRows.row(10 * i)).toList(); // in row order
    List<byte[]> grouped = List.of(rows.get(0), rows.get(1), rows.get(4), rows.get(5));
    KeyGroup g = client.createGroup(GroupSpec.builder().id("minibatches").members(PATHS, grouped).build());
    List<Put> puts = rows.stream().map(r -> new Put(r).addColumn(CF, Q, Bytes.toBytes(42L))).toList();
    try (Table paths = cluster.getConnection().getTable(PATHS)) {
      assertThatThrownBy(() -> paths.put(puts)).isInstanceOfSatisfying(RetriesExhaustedWithDetailsException.class,
          e -> {
            assertThat(IntStream.range(0, e.getNumExceptions()).mapToObj(i -> Bytes.toString(e.getRow(i).getRow())))
                .as("the grouped rows' writes fail, and only they").containsExactlyInAnyOrderElementsOf(
                    grouped.stream().map(Bytes::toString).toList());
            assertThat(e.getCauses()).allSatisfy(cause -> assertThat(RowGroupedException.is(cause)).isTrue());
          });
      for (byte[] row : rows) {
        assertThat(paths.get(new Get(row)).isEmpty()).as(Bytes.toString(row)).isEqualTo(grouped.contains(row));
      }
    }
    g.delete();
  }

  /**
   * An atomic write of several rows (HBase's {@code MultiRowMutationEndpoint}) that touches a grouped row is
   * refused whole: HBase would report a per-operation refusal on this path as applied. (The same call inside a
   * batch, {@code Table.batchCoprocessorService}, is refused whole too, by {@code BatchKind}; HBase 2.6's client
   * cannot make that call to this endpoint, since it names the service differently from how regions register it.)
   */
  @Test
  void anAtomicWriteOfSeveralRowsTouchingAGroupedRowWritesNone(GStoreMiniCluster cluster) throws Exception {
    byte[] free = TestRows.row(70);
    byte[] grouped = TestRows.row(80);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("atomic").members(PATHS, List.of(grouped)).build());
    MutateRowsRequest both = MutateRowsRequest.newBuilder()
        .addMutationRequest(ProtobufUtil.toMutation(MutationType.PUT, new Put(free).addColumn(CF, Q, Bytes.toBytes(1L))))
        .addMutationRequest(ProtobufUtil.toMutation(MutationType.PUT,
            new Put(grouped).addColumn(CF, Q, Bytes.toBytes(2L))))
        .build();
    try (Table paths = cluster.getConnection().getTable(PATHS)) {
      assertThatThrownBy(() -> MultiRowMutationService.newBlockingStub(paths.coprocessorService(free))
          .mutateRows(null, both)).satisfies(e -> assertThat(groupedCause(e)).as(e.toString()).isNotNull());
      assertThat(paths.get(new Get(free)).isEmpty()).as("all or nothing: the free row is not written").isTrue();
      assertThat(paths.get(new Get(grouped)).isEmpty()).isTrue();
    }
    g.delete();
  }

  private static GroupRef refOf(GStoreMiniCluster cluster, String name) {
    return StateTablesView.groups(cluster).stream().map(GroupRecord::group)
        .filter(r -> r.id().name().equals(name)).reduce((a, b) -> b).orElseThrow();
  }

  private static Put withToken(Put put, byte[] token) {
    put.setAttribute(OwnerToken.ATTRIBUTE, token);
    return put;
  }

  /** The RowGroupedException behind what the HBase client threw (in either form, see its {@code is}), or null. */
  private static Throwable groupedCause(Throwable e) {
    if (e instanceof RetriesExhaustedWithDetailsException r) {
      return r.getCauses().stream().map(FencingIT::groupedCause).filter(c -> c != null).findFirst().orElse(null);
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (RowGroupedException.is(t)) {
        return t;
      }
    }
    return null;
  }
}
