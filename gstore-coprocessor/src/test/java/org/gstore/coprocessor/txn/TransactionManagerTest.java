package org.gstore.coprocessor.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.hbase.RegionTooBusyException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.awaitility.Awaitility;
import org.gstore.common.protocol.CreateMode;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.MemberState;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.CommitResponse;
import org.gstore.common.wire.generated.GStoreProtos.ReadStampProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.GStoreProtos.TxnOutcomeProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.coprocessor.wal.UpdateShipper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.gstore.recovery.WalPosition;

/**
 * The commit path without a cluster: the production {@link TransactionManager}, {@link GroupCaches} and
 * {@link UpdateShipper} over a commit log whose appends the test completes, an in-memory sink and loader.
 */
@Timeout(30)
class TransactionManagerTest {
  private static final Key ROW = Key.of("t", "row");
  private static final GroupId ID = new GroupId("g", ROW);
  private static final GroupRecord RECORD;

  static {
    TreeMap<Key, MemberState> members = new TreeMap<>();
    members.put(ROW, new MemberState(MemberState.Status.JOINED, new Uid(new NodeId("n1"), 2), null));
    RECORD = new GroupRecord(new GroupRef(ID, new Uid(new NodeId("n1"), 1)), CreateMode.ATOMIC, GroupPhase.ACTIVE,
        "req-1", members, null, 0);
  }

  /** Appends the test has not completed yet. */
  private final List<CompletableFuture<WalPosition>> appends = new ArrayList<>();
  private final List<Long> shipped = new ArrayList<>();
  private final UpdateShipper shipper = new UpdateShipper(batch -> {
    synchronized (shipped) {
      batch.forEach(s -> shipped.add(s.commitTs()));
    }
  }, batch -> { }, true, 1, 0);
  private final TransactionManager manager = new TransactionManager(
      new GStoreMetrics(MetricRegistries.global().create(new MetricRegistryInfo("txn-test", "t", "t", "t", false))),
      (group, record) -> {
        CompletableFuture<WalPosition> append = new CompletableFuture<>();
        synchronized (appends) {
          appends.add(append);
        }
        return append;
      },
      shipper,
      new GroupCaches((record, incarnation) -> new GroupCache(record.group(), incarnation,
          Map.of(ROW, new RowState(10, Map.of())), 10, 60_000), id -> Optional.of(RECORD), k -> true,
          ref -> Map.of()),
      new CommitValidator(new MemberTables() {
        @Override
        public org.apache.hadoop.hbase.client.TableDescriptor descriptor(String table) {
          return TableDescriptorBuilder.newBuilder(TableName.valueOf(table))
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build();
        }

        @Override
        public String problemWith(String table) {
          return null;
        }
      }, 0, 1 << 20),
      100, 60_000);

  @AfterEach
  void close() {
    manager.close();
    shipper.close();
  }

  @Test
  void aCommitWhoseAppendOutlivesTheWaitBlocksTheGroupUntilItsOutcomeIsKnownThenCounts() throws Exception {
    long readVersion = manager.read(ID, null, 0, List.of(key())).rows().get(0).getVersion();
    assertThatThrownBy(() -> commit("slow", readVersion, "1")).isInstanceOf(IOException.class)
        .hasMessageContaining("outcome is unknown");

    // while the slow append's outcome is unknown, no other commit may be validated without it
    assertThatThrownBy(() -> commit("other", readVersion, "2")).isInstanceOf(RegionTooBusyException.class);

    completeAppend(0);
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> shippedCount() == 1);
    // the late commit happened, in order: a transaction that read before it now conflicts
    assertThat(commit("other", readVersion, "2").getOutcome()).isEqualTo(TxnOutcomeProto.CONFLICT);
    // a retry of the slow commit gets its true outcome
    CommitResponse retried = commit("slow", readVersion, "1");
    assertThat(retried.getOutcome()).isEqualTo(TxnOutcomeProto.COMMITTED);
    assertThat(manager.read(ID, null, 0, List.of(key())).rows().get(0).getColumns(0).getValue().toStringUtf8())
        .isEqualTo("1");
  }

  private CommitResponse commit(String txnId, long readVersion, String value) throws IOException {
    return manager.commit(ID, txnId, incarnation(), List.of(ReadStampProto.newBuilder().setKey(key())
        .setVersion(readVersion).build()), List.of(write(value)));
  }

  private long incarnation() throws IOException {
    return manager.read(ID, null, 0, List.of(key())).incarnation();
  }

  private void completeAppend(int i) {
    synchronized (appends) {
      appends.get(i).complete(new WalPosition(0, i));
    }
  }

  private int shippedCount() {
    synchronized (shipped) {
      return shipped.size();
    }
  }

  private static KeyProto key() {
    return KeyProto.newBuilder().setTable(ROW.table()).setRow(ByteString.copyFrom(ROW.row())).build();
  }

  private static RowWriteProto write(String value) {
    return RowWriteProto.newBuilder().setKey(key()).addColumns(ColumnProto.newBuilder()
        .setFamily(ByteString.copyFromUtf8("f")).setQualifier(ByteString.copyFromUtf8("q"))
        .setValue(ByteString.copyFromUtf8(value))).build();
  }
}
