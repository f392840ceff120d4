package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.MasterNotRunningException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.gstore.coprocessor.config.GStoreConfig;
import org.junit.jupiter.api.Test;

class TableGuardTest {
  private static final TableName GAMES = TableName.valueOf("games");

  private final AtomicLong now = new AtomicLong(1_000_000);
  private final AtomicInteger masterCalls = new AtomicInteger();
  private final Map<TableName, TableDescriptor> servedHere = new HashMap<>();
  private volatile TableDescriptor masters = withFamilies("f");
  private volatile IOException masterDown;

  @Test
  void aMasterThatIsGoneDoesNotStopCommitsOnATableAlreadyKnown() throws Exception {
    TableGuard guard = guard();
    assertThat(guard.descriptor("games").hasColumnFamily(bytes("f"))).isTrue();

    masterDown = new MasterNotRunningException("killed");
    now.addAndGet(TableGuard.REFRESH_MILLIS * 10);
    guard.refreshAll();
    assertThat(guard.descriptor("games").hasColumnFamily(bytes("f"))).isTrue();
    assertThat(guard.problemWith("games")).isNull();
    assertThat(guard.descriptor("games")).isNotNull();
  }

  @Test
  void everyKnownTableIsAskedAgainAtEachRefreshEvenIfNoCommitAsks() throws Exception {
    TableGuard guard = guard();
    guard.descriptor("games");
    masters = withFamilies("f", "g");
    assertThat(guard.descriptor("games").hasColumnFamily(bytes("g"))).as("until the refresh").isFalse();
    assertThat(masterCalls).hasValue(1);

    now.addAndGet(TableGuard.REFRESH_MILLIS);
    guard.refreshAll(); // a quiet table too: its next commit must not get an answer older than a period
    assertThat(masterCalls).hasValue(2);
    assertThat(guard.descriptor("games").hasColumnFamily(bytes("g"))).isTrue();
  }

  @Test
  void aTableNoCommitAskedAboutForLongIsForgottenAndAskedAfreshNextTime() throws Exception {
    TableGuard guard = guard();
    guard.descriptor("games");
    now.addAndGet(TableGuard.FORGET_MILLIS);
    guard.refreshAll();
    assertThat(masterCalls).as("forgotten, not refreshed").hasValue(1);
    masterDown = new MasterNotRunningException("killed");
    assertThatThrownBy(() -> guard.descriptor("games")).isInstanceOf(MasterNotRunningException.class);
  }

  @Test
  void aTableServedHereIsAnsweredByItsRegionWithoutTheMaster() throws Exception {
    servedHere.put(GAMES, withFamilies("f", "h"));
    masterDown = new MasterNotRunningException("killed");
    TableGuard guard = guard();
    assertThat(guard.descriptor("games").hasColumnFamily(bytes("h"))).isTrue();
    assertThat(masterCalls).hasValue(0);
  }

  @Test
  void theFirstQuestionAboutATableWaitsForTheMasterAndSaysWhyItCannot() throws Exception {
    masterDown = new MasterNotRunningException("killed");
    TableGuard guard = guard();
    assertThatThrownBy(() -> guard.descriptor("games")).isInstanceOf(MasterNotRunningException.class);

    masterDown = null;
    masters = null;
    assertThat(guard.problemWith("games")).isEqualTo("table games does not exist");
  }

  @Test
  void aTableAlteredToDropGStoreIsRefusedOnceTheRefreshSeesIt() throws Exception {
    TableGuard guard = guard();
    guard.descriptor("games");
    masters = TableDescriptorBuilder.newBuilder(GAMES)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build();
    now.addAndGet(TableGuard.REFRESH_MILLIS);
    guard.refreshAll();
    assertThat(guard.descriptor("games")).isNull();
    assertThat(guard.problemWith("games")).contains("does not run G-Store");
  }

  @Test
  void systemAndInvalidTablesAreRefusedWithoutAsking() throws Exception {
    TableGuard guard = guard();
    assertThat(guard.problemWith("hbase:meta")).contains("system table");
    assertThat(guard.problemWith("gstore:owners")).contains("system table");
    assertThat(guard.problemWith("no such/name")).contains("not a valid table name");
    assertThat(masterCalls).hasValue(0);
  }

  private TableGuard guard() {
    return new TableGuard(table -> {
      masterCalls.incrementAndGet();
      if (masterDown != null) {
        throw masterDown;
      }
      if (masters == null) {
        throw new TableNotFoundException(table);
      }
      return masters;
    }, servedHere::get, false, now::get, null);
  }

  private static TableDescriptor withFamilies(String... families) {
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(GAMES);
    for (String f : families) {
      b.setColumnFamily(ColumnFamilyDescriptorBuilder.of(f));
    }
    try {
      return b.setCoprocessor(GStoreConfig.REGION_COPROCESSOR).build();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }
}
