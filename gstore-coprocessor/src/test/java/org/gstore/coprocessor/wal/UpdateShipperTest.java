package org.gstore.coprocessor.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotEnabledException;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.OwnerToken;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.gstore.recovery.hbase.CommitApplier;
import org.gstore.recovery.hbase.OutcomeTable;
import org.gstore.recovery.Shipment;
import org.gstore.recovery.WalPosition;
import org.gstore.recovery.ShipmentLedger;

/** The shipper against a faked HBase client that refuses writes of one row for good. */
@Timeout(30)
class UpdateShipperTest {
  private static final GroupRef GROUP =
      new GroupRef(new GroupId("g", Key.of("t", Bytes.toBytes("leader"))), new Uid(new org.gstore.common.protocol.NodeId("node"), 1));
  private static final GroupRef OTHER =
      new GroupRef(new GroupId("other", Key.of("t", Bytes.toBytes("o"))), new Uid(new org.gstore.common.protocol.NodeId("node"), 1));
  private final List<String> applied = new ArrayList<>();
  /** The transactions whose outcome was recorded in gstore:outcomes. */
  private final java.util.Set<String> recordedOutcomes = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** The durability of every outcome row written. */
  private final List<Durability> outcomeDurabilities = java.util.Collections.synchronizedList(new ArrayList<>());

  /** Whether the next batch write throws an {@code Error} (once). */
  private volatile boolean throwErrorOnce;

  /** A row whose every write makes the client throw what nobody expects (a bug), or null. */
  private volatile String throwsOnRow;

  /** The row HBase refuses for good now ({@link #hbaseRefusing}'s argument until a test changes it). */
  private volatile String poisoned;

  private Connection hbaseRefusing(String poisonedRow) throws Exception {
    poisoned = poisonedRow;
    Table table = mock(Table.class);
    doAnswer(call -> {
      if (throwErrorOnce) {
        throwErrorOnce = false;
        throw new OutOfMemoryError("planted: the shipping threw what it does not expect");
      }
      List<? extends Row> actions = call.getArgument(0);
      if (actions.stream().anyMatch(r -> Bytes.toString(r.getRow()).equals(throwsOnRow))) {
        throw new IllegalStateException("planted: a bug the client hits on this row");
      }
      List<Throwable> causes = new ArrayList<>();
      List<Row> failed = new ArrayList<>();
      for (Row r : actions) {
        if (Bytes.toString(r.getRow()).equals(poisoned)) {
          causes.add(new NoSuchColumnFamilyException("family dropped"));
          failed.add(r);
        }
      }
      if (!causes.isEmpty()) {
        throw new RetriesExhaustedWithDetailsException(causes, failed, List.of("server"));
      }
      synchronized (applied) {
        actions.forEach(r -> applied.add(Bytes.toString(r.getRow())
            + (((org.apache.hadoop.hbase.client.Mutation) r).getDurability() == Durability.SYNC_WAL ? "(sync)" : "")));
      }
      return null;
    }).when(table).batch(any(), any());
    Table outcomes = mock(Table.class);
    doAnswer(call -> {
      List<? extends Row> puts = call.getArgument(0);
      puts.forEach(p -> recordedOutcomes.add(Bytes.toString(p.getRow())));
      puts.forEach(p -> outcomeDurabilities.add(((org.apache.hadoop.hbase.client.Mutation) p).getDurability()));
      return null;
    }).when(outcomes).batch(any(), any());
    Connection connection = mock(Connection.class);
    when(connection.getTable(any(TableName.class))).thenReturn(table);
    when(connection.getTable(OutcomeTable.NAME)).thenReturn(outcomes);
    return connection;
  }

  private static Shipment commit(String row, long seq) {
    return commit(GROUP, seq, row);
  }

  /** A commit of {@code group} at timestamp 1000 + seq, logged at record {@code seq}, writing {@code rows}. */
  private static Shipment commit(GroupRef group, long seq, String... rows) {
    List<RowWriteProto> writes = new ArrayList<>();
    for (String row : rows) {
      writes.add(RowWriteProto.newBuilder()
          .setKey(KeyProto.newBuilder().setTable("t").setRow(ByteString.copyFromUtf8(row)))
          .addColumns(ColumnProto.newBuilder().setFamily(ByteString.copyFromUtf8("f"))
              .setQualifier(ByteString.copyFromUtf8("q")).setValue(ByteString.copyFromUtf8("v")))
          .build());
    }
    return new Shipment(group, 1_000 + seq, "t" + seq, writes, new WalPosition(0, seq));
  }

  @Test
  void aCommitHBaseRefusesForGoodIsQuarantinedAndOtherGroupsShipInOrder() throws Exception {
    UpdateShipper shipper = new UpdateShipper(hbaseRefusing("bad"), new OwnerToken(new byte[32]),
        Durability.SYNC_WAL, 1);
    try {
      shipper.ship(commit(OTHER, 0, "a"));
      shipper.ship(commit(GROUP, 1, "bad"));
      shipper.ship(commit(OTHER, 2, "b"));
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().quarantinedCount() == 1);
      assertThatThrownBy(() -> shipper.drain(GROUP, 200)).as("the group is held until its commit lands")
          .hasMessageContaining("quarantined");
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> applied.size() == 2);
      assertThat(applied).containsExactly("a(sync)", "b(sync)");
      assertThat(recordedOutcomes).as("refused or not, each committed: a retry must learn so at any leader")
          .hasSize(3).allMatch(row -> row.contains("t0") || row.contains("t1") || row.contains("t2"));
      assertThat(shipper.ledger().quarantinedCount()).isEqualTo(1);
      assertThat(shipper.ledger().pendingCount()).as("still held").isEqualTo(1);
      assertThat(shipper.ledger().walNeededAbove(0)).as("the WAL keeps the quarantined record").isEqualTo(0);
      shipper.ship(commit(OTHER, 3, "c"));
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> applied.size() == 3);
      assertThat(applied).containsExactly("a(sync)", "b(sync)", "c(sync)");
      assertThat(shipper.ledger().pendingCount()).isEqualTo(1);
      assertThat(shipper.ledger().walNeededAbove(0)).isEqualTo(0);
    } finally {
      shipper.close();
    }
  }

  /**
   * A commit of the group acknowledged before the quarantine was known must not land before the quarantined one: it
   * may delete a cell that one writes, and the older write landing under a delete marker that major compactions
   * purge after {@code gstore.recovery.deletes.retain.ms} would bring the deleted value back.
   */
  @Test
  void aLaterCommitOfAQuarantinedCommitsGroupWaitsBehindItAndLandsAfterIt() throws Exception {
    UpdateShipper shipper = new UpdateShipper(hbaseRefusing("bad"), new OwnerToken(new byte[32]),
        Durability.SYNC_WAL, 1);
    try {
      shipper.ship(commit(GROUP, 0, "bad", "x"));
      shipper.ship(commit(GROUP, 1, "x"));
      shipper.ship(commit(OTHER, 2, "b"));
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().quarantinedCount() == 2);
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> applied.size() == 1);
      assertThat(applied).as("only the other group's commit lands").containsExactly("b(sync)");
      assertThat(shipper.ledger().refusals()).as("HBase refused one commit; the other waits behind it")
          .isEqualTo(1);
      assertThat(shipper.ledger().quarantineCause(GROUP)).get().asString().contains("family dropped");
      shipper.ship(commit(GROUP, 3, "y")); // handed over later still (a replayed commit, say): waits too
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().quarantinedCount() == 3);
      assertThat(shipper.ledger().retryQuarantined(0)).as("still refused").isEqualTo(3);
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().refusals() == 2
          && shipper.ledger().quarantinedCount() == 3);
      assertThat(applied).containsExactly("b(sync)");
      poisoned = "none"; // the operator fixed the cause
      assertThat(shipper.ledger().retryQuarantined(ShipmentLedger.DEFAULT_QUARANTINE_RETRY_MILLIS)).isEqualTo(3);
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().pendingCount() == 0);
      assertThat(applied).as("in commit order").containsExactly("b(sync)", "bad(sync)", "x(sync)", "x(sync)",
          "y(sync)");
      assertThat(shipper.ledger().quarantinedCount()).isZero();
    } finally {
      shipper.close();
    }
  }

  @Test
  void aQuarantinedCommitIsShippedAgainAndLandsOnceItsCauseIsFixed() throws Exception {
    UpdateShipper shipper = new UpdateShipper(hbaseRefusing("bad"), new OwnerToken(new byte[32]),
        Durability.SYNC_WAL, 1);
    try {
      shipper.ship(commit("bad", 0));
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().quarantinedCount() == 1);
      assertThat(shipper.ledger().retryQuarantined(0)).as("still refused: quarantined again").isEqualTo(1);
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().refusals() == 2);
      assertThat(shipper.ledger().quarantinedCount()).isEqualTo(1);
      assertThat(shipper.ledger().pendingCount()).as("held while quarantined").isEqualTo(1);
      assertThat(shipper.ledger().retryQuarantined(1)).as("not before the retry interval").isZero();
      poisoned = "none"; // the operator fixed the cause (a family added back)
      assertThat(shipper.ledger().retryQuarantined(ShipmentLedger.DEFAULT_QUARANTINE_RETRY_MILLIS)).isEqualTo(1);
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().quarantinedCount() == 0
          && shipper.ledger().pendingCount() == 0);
      assertThat(applied).containsExactly("bad(sync)");
      assertThat(shipper.ledger().walNeededAbove(0)).as("landed: the WAL need not keep it").isEqualTo(0);
    } finally {
      shipper.close();
    }
  }

  /** Before, the shipper's thread logged such a batch and dropped it: its commits stayed held with nothing to ship. */
  @Test
  void aBatchTheShippingThrowsOnUnexpectedlyIsShippedAgainNotStranded() throws Exception {
    UpdateShipper shipper = new UpdateShipper(hbaseRefusing("none"), new OwnerToken(new byte[32]),
        Durability.SYNC_WAL, 1);
    try {
      throwErrorOnce = true;
      shipper.ship(commit(GROUP, 0, "a"));
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().pendingCount() == 0);
      assertThat(applied).containsExactly("a(sync)");
      assertThat(throwErrorOnce).as("the first attempt threw").isFalse();
    } finally {
      shipper.close();
    }
  }

  /**
   * Before, a commit the shipping always threw on (unchecked) was shipped again with every batch, and every batch
   * threw: no group's commits shipped again, ever.
   */
  @Test
  void aCommitTheShippingAlwaysThrowsOnIsQuarantinedAndTheOthersShip() throws Exception {
    UpdateShipper shipper = new UpdateShipper(hbaseRefusing("none"), new OwnerToken(new byte[32]),
        Durability.SYNC_WAL, 1);
    try {
      throwsOnRow = "buggy";
      Shipment buggy = commit(GROUP, 0, "buggy");
      shipper.ship(buggy);
      shipper.ship(commit(OTHER, 1, "fine"));
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().quarantinedCount() == 1);
      assertThat(shipper.ledger().quarantineCause(GROUP)).hasValueSatisfying(c -> assertThat(c).contains("planted"));
      assertThat(shipper.ledger().pendingCount(GROUP)).as("held, never dropped").isEqualTo(1);

      shipper.ship(commit(OTHER, 2, "later"));
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().pendingCount(OTHER) == 0);
      assertThat(applied).containsExactly("fine(sync)", "later(sync)");

      throwsOnRow = null; // the bug fixed: the quarantine's retry lands it
      shipper.ledger().quarantineRetryMillis(1);
      shipper.ledger().retryQuarantined(System.currentTimeMillis());
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().pendingCount() == 0);
      assertThat(applied).endsWith("buggy(sync)");
    } finally {
      shipper.close();
    }
  }

  @Test
  void aDisabledTableIsWaitedForNotQuarantined() {
    assertThat(CommitApplier.refusedForGood(new TableNotEnabledException("t"))).isFalse();
    assertThat(CommitApplier.refusedForGood(new RetriesExhaustedWithDetailsException(
        List.of(new TableNotEnabledException("t")), List.of(), List.of("s")))).isFalse();
    assertThat(CommitApplier.refusedForGood(new RetriesExhaustedWithDetailsException(
        List.of(new NoSuchColumnFamilyException("f")), List.of(), List.of("s")))).isTrue();
    // a replay bounds HBase's client retries: running out of that time is not a refusal (it was, and replay skipped
    // the commit: caught by WalRecoveryIT)
    assertThat(CommitApplier.refusedForGood(new RetriesExhaustedWithDetailsException(
        List.of(new org.apache.hadoop.hbase.client.OperationTimeoutExceededException("backoff")), List.of(),
        List.of("s")))).isFalse();
  }

  @Test
  void theWalKeepsARecordThatWasNotHandedOverYet() throws Exception {
    // two groups' records in one WAL batch: the second one's commit may reach the shipper first
    UpdateShipper shipper = new UpdateShipper(hbaseRefusing("none"), new OwnerToken(new byte[32]),
        Durability.SYNC_WAL, 1);
    try {
      shipper.ship(commit("later", 1));
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().pendingCount() == 0);
      assertThat(shipper.ledger().walNeededAbove(0)).as("record 0 is durable but not shipped").isEqualTo(-1);
      shipper.ship(commit("earlier", 0));
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().walNeededAbove(0) == 1);
    } finally {
      shipper.close();
    }
  }

  /** A shipper with {@code ASYNC_WAL} that has shipped commits "a" and "b" (shipments 0 and 1). */
  private UpdateShipper asyncShipperThatShippedTwo() throws Exception {
    UpdateShipper shipper = new UpdateShipper(hbaseRefusing("none"), new OwnerToken(new byte[32]),
        Durability.ASYNC_WAL, 1);
    shipper.ship(commit("a", 0));
    shipper.ship(commit("b", 1));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().shippedThrough() == 1);
    return shipper;
  }

  @Test
  void withAsyncWalShippedCommitsAreHeldUntilPersistedAndShippedAgainWhenAServerDies() throws Exception {
    UpdateShipper shipper = asyncShipperThatShippedTwo();
    try {
      assertThat(shipper.ledger().pendingCount()).as("shipped, not yet persisted").isEqualTo(2);
      assertThat(shipper.ledger().walNeededAbove(0)).isEqualTo(-1);

      shipper.ledger().forgetPersistedThrough(0); // every server claimed shipment 0 ("a")
      assertThat(shipper.ledger().pendingCount()).isEqualTo(1);
      assertThat(shipper.ledger().walNeededAbove(0)).isEqualTo(0);
      assertThat(shipper.ledger().shipAgainAbove(0)).as("a server died having persisted through shipment 0").isEqualTo(1);
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shipper.ledger().shippedThrough() == 2);
      assertThat(applied).containsExactly("a", "b", "b");
      shipper.ledger().forgetPersistedThrough(1); // a claim made before "b" was shipped again does not cover it
      assertThat(shipper.ledger().pendingCount()).isEqualTo(1);
    } finally {
      shipper.close();
    }
  }

  /**
   * Issue 35, item 1: an outcome row may land on a region server that no claim covers ({@code gstore:outcomes} is on
   * servers that run no G-Store region): written with {@code ASYNC_WAL} it could vanish with that server after its
   * commit was forgotten, and a retry would commit the transaction again. So it is persisted before the commit
   * counts as shipped, whatever the shipper's durability.
   */
  @Test
  void withAsyncWalOutcomeRowsArePersistedBeforeTheCommitCountsAsShipped() throws Exception {
    UpdateShipper shipper = asyncShipperThatShippedTwo();
    try {
      assertThat(applied).as("the commits' own writes keep the shipper's durability").containsExactly("a", "b");
      assertThat(outcomeDurabilities).hasSize(2).containsOnly(Durability.SYNC_WAL);
    } finally {
      shipper.close();
    }
  }

  @Test
  void withAsyncWalADrainPersistsTheGroupsLastCommitsItself() throws Exception {
    UpdateShipper shipper = new UpdateShipper(hbaseRefusing("none"), new OwnerToken(new byte[32]),
        Durability.ASYNC_WAL, 1);
    try {
      shipper.ship(commit("a", 0));
      shipper.ship(commit("b", 1));
      shipper.drain(GROUP, 5_000); // no server claims anything here: the drain writes them again, persisted
      assertThat(applied).containsExactly("a", "b", "a(sync)", "b(sync)");
      assertThat(shipper.ledger().pendingCount()).isZero();
      assertThat(shipper.ledger().persistedOnDrainCount()).isEqualTo(2);
      assertThat(shipper.ledger().walNeededAbove(0)).isEqualTo(1);
    } finally {
      shipper.close();
    }
  }

}
