package org.gstore.coprocessor.txn;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import java.util.List;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class CommitValidatorTest {
  private static RowWriteProto write(String row, int valueBytes) {
    return RowWriteProto.newBuilder()
        .setKey(KeyProto.newBuilder().setTable("t").setRow(ByteString.copyFromUtf8(row)))
        .addColumns(ColumnProto.newBuilder().setFamily(ByteString.copyFromUtf8("f"))
            .setQualifier(ByteString.copyFromUtf8("q")).setValue(ByteString.copyFrom(new byte[valueBytes])))
        .build();
  }

  @Test
  void aCommitAboveTheLimitIsRefusedBeforeAnythingElseIsLookedAt() {
    // no table guard: the size is checked first, before any table is looked up or anything is logged
    CommitValidator validator = new CommitValidator(null, 0, 4_096);
    assertThatThrownBy(() -> validator.check("txn-1", List.of(write("a", 3_000), write("b", 3_000))))
        .isInstanceOf(DoNotRetryIOException.class)
        .hasMessageContaining("above the limit of 4096 bytes (gstore.txn.max.commit.bytes)")
        .hasMessageContaining("nothing was committed");
  }
}
