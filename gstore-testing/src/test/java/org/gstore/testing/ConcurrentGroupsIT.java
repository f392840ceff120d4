package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupCreationException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.RowKey;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.OwnerRecord;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Many clients forming and dissolving groups over overlapping rows at once never put a row in two groups. */
@WithMiniCluster(regionServers = 3)
class ConcurrentGroupsIT {
  private static final TableName TABLE = TableName.valueOf("concurrent_rows");
  private static final int THREADS = 6;
  private static final int CYCLES = 12;
  private static final int KEYS = 24;

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void overlappingCreatesAndDeletesNeverShareARowAndFreeEveryRow(GStoreMiniCluster cluster) throws Exception {
    cluster.createTable(TABLE, new byte[][] {Bytes.toBytes("f")}, TestRows.splits(6)).close();
    Map<RowKey, String> heldBy = new ConcurrentHashMap<>();
    List<String> violations = new CopyOnWriteArrayList<>();
    AtomicInteger created = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (GStoreClient client = GStoreClient.create(cluster.getConnection())) {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        workers.add(pool.submit(() -> {
          Random random = new Random(thread);
          for (int c = 0; c < CYCLES; c++) {
            List<byte[]> rows = pick(random);
            GroupSpec.Builder spec = GroupSpec.builder().id("t" + thread + "-c" + c).members(TABLE, rows);
            KeyGroup g;
            try {
              g = client.createGroup(random.nextBoolean() ? spec.atomic().build() : spec.bestEffort().build());
            } catch (GroupCreationException e) {
              refused.incrementAndGet();
              continue;
            }
            created.incrementAndGet();
            for (RowKey m : g.members()) {
              String other = heldBy.putIfAbsent(m, g.id().toString());
              if (other != null) {
                violations.add(m + " is in " + g.id() + " and in " + other);
              }
            }
            checkOwnerRecords(cluster, g, violations);
            g.members().forEach(m -> heldBy.remove(m, g.id().toString()));
            g.delete();
          }
          return null;
        }));
      }
      for (Future<?> w : workers) {
        w.get(3, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(violations).isEmpty();
    assertThat(created.get()).as("groups formed").isGreaterThan(THREADS * CYCLES / 4);
    // A failed atomic create answers at once and releases its joined members in the background: wait for it.
    Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(StateTablesView.owners(cluster).stream()
          .filter(o -> o.key().table().equals(TABLE.getNameAsString()))).as("every row is free again").isEmpty();
      assertThat(StateTablesView.groups(cluster).stream()
          .filter(g -> g.group().leader().table().equals(TABLE.getNameAsString())))
          .allMatch(g -> g.phase() == GroupPhase.ENDED);
    });
    System.out.printf("concurrent groups: created=%d refused=%d%n", created.get(), refused.get());
  }

  private static List<byte[]> pick(Random random) {
    List<Integer> all = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      all.add(i);
    }
    Collections.shuffle(all, random);
    List<byte[]> rows = new ArrayList<>();
    for (int i : all.subList(0, 3 + random.nextInt(4))) {
      rows.add(TestRows.row(i));
    }
    return rows;
  }

  /** Each member of a group its creator holds is durably yielded (or joining) to that very group. */
  private static void checkOwnerRecords(GStoreMiniCluster cluster, KeyGroup g, List<String> violations) {
    Map<Key, OwnerRecord> owners = new ConcurrentHashMap<>();
    StateTablesView.owners(cluster).forEach(o -> owners.put(o.key(), o));
    for (RowKey m : g.members()) {
      OwnerRecord o = owners.get(Key.of(m.table().getNameAsString(), m.row()));
      if (o == null || !o.group().id().name().equals(g.id().name())) {
        violations.add(m + " is a member of " + g.id() + " but its owner record is " + o);
      }
    }
  }
}
