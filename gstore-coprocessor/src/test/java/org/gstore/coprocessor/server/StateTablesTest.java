package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import java.io.IOException;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mockito.Mockito;

@Timeout(10)
class StateTablesTest {
  /**
   * A scan of the state tables that fails part-way (their region's server died, the scanner timed out) must fail the
   * load as an {@link IOException}, which the region's loader retries. HBase's scanner iterator wraps it in an
   * unchecked exception instead, and a loader that only retried I/O errors ended silently: the region never took
   * a write again (seen in a chaos run, a member region reopened while {@code gstore:groups} was being reassigned).
   */
  @Test
  void aScanThatFailsPartWayIsAnIoErrorTheLoaderRetries() throws IOException {
    ResultScanner failing = mock(ResultScanner.class, withSettings().defaultAnswer(Mockito.CALLS_REAL_METHODS));
    Mockito.doThrow(new IOException("region server died mid-scan")).when(failing).next();
    Mockito.doNothing().when(failing).close();
    Table table = mock(Table.class);
    when(table.getScanner(any(Scan.class))).thenReturn(failing);
    Connection connection = mock(Connection.class);
    when(connection.getTable(any())).thenReturn(table);

    StateTables tables = new StateTables(connection, new org.gstore.common.protocol.log.VersionClock());

    assertThatThrownBy(() -> tables.load("players", HConstants.EMPTY_START_ROW, HConstants.EMPTY_END_ROW))
        .isInstanceOf(IOException.class).hasMessageContaining("mid-scan");
  }
}
