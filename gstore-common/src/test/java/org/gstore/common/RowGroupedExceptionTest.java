package org.gstore.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.junit.jupiter.api.Test;

/** The refusal of a grouped row's write is recognized in both forms a client gets it. */
class RowGroupedExceptionTest {
  @Test
  void theRefusalIsRecognizedThrownAsItselfOrFlattenedByHBaseForOneWriteOfABatch() {
    RowGroupedException refusal = RowGroupedException.of("players/alice", "game-42@players/bob");
    // what HBase's OperationStatus(code, exception) makes of it for one operation of a batch, as the client gets it
    DoNotRetryIOException flattened = new DoNotRetryIOException(DoNotRetryIOException.class.getName() + ": "
        + refusal.getClass().getName() + ": " + refusal.getMessage());

    assertThat(RowGroupedException.is(refusal)).isTrue();
    assertThat(RowGroupedException.is(flattened)).isTrue();
    assertThat(RowGroupedException.is(new DoNotRetryIOException("NoSuchColumnFamilyException: x"))).isFalse();
    assertThat(RowGroupedException.is(new IOException(flattened.getMessage()))).as("retryable: not ours").isFalse();
    assertThat(RowGroupedException.is(new DoNotRetryIOException((String) null))).isFalse();
  }
}
