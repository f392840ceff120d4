package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.awaitility.Awaitility;
import org.gstore.common.protocol.ClientRequest;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.Delete;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.txn.GroupHandover;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** When a deleted group's releases leave the leader, against groups whose commits the test makes durable. */
@Timeout(60)
class GroupDeletesTest {
  private static final NodeId SELF = new NodeId("leader");
  private static final NodeId MEMBER = new NodeId("member");
  private static final long ENDPOINT_WAIT_MS = 2_000;

  /** A group whose commits reach HBase when the test says; each wait for them takes as long as it may. */
  private static final class TestRelease implements GroupHandover.Release {
    final GroupRef group;
    final AtomicBoolean durable = new AtomicBoolean();
    final AtomicInteger attempts = new AtomicInteger();
    /** Whether a wait that fails takes its whole allowance (a quarantined commit) or fails at once. */
    final boolean waitsItsAllowance;

    TestRelease(String name, boolean waitsItsAllowance) {
      this.group = new GroupRef(new GroupId(name, Key.of("t", name)), new Uid(SELF, 1));
      this.waitsItsAllowance = waitsItsAllowance;
    }

    @Override
    public GroupRef group() {
      return group;
    }

    @Override
    public void awaitDurable(long waitMillis) throws IOException {
      attempts.incrementAndGet();
      if (durable.get()) {
        return;
      }
      if (waitsItsAllowance) {
        try {
          new java.util.concurrent.CountDownLatch(1).await(waitMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException();
        }
      }
      throw new IOException("planted: a commit of " + group.id() + " is not in HBase yet");
    }
  }

  private final Map<GroupId, TestRelease> releases = new ConcurrentHashMap<>();
  private final ReleaseGate gate = new ReleaseGate();
  private final List<Datagram> sent = new CopyOnWriteArrayList<>();
  private final List<GroupDeletes> opened = new ArrayList<>();
  private final List<StepWriter> writers = new ArrayList<>();

  private GroupDeletes deletes(GroupDeletes.Exit exit) {
    GroupDeletes deletes = new GroupDeletes(SELF, id -> Optional.ofNullable(releases.get(id)), gate,
        request -> CompletableFuture.completedFuture(null), sent::add, exit, ENDPOINT_WAIT_MS,
        r -> new Thread(r, "test-release"));
    opened.add(deletes);
    return deletes;
  }

  @AfterEach
  void close() {
    opened.forEach(GroupDeletes::close);
    writers.forEach(StepWriter::close);
  }

  /** A live server's exit: every effect leaves. */
  private static boolean letOut(Runnable effects) {
    effects.run();
    return true;
  }

  /** The engine's release of one member, sent through the gate as the outbox sends it. */
  private void engineReleases(TestRelease release) {
    Datagram d = new Datagram(SELF, MEMBER, List.of(new Delete(release.group, Key.of("t", "m"))), List.of());
    Datagram passing = gate.pass(d);
    if (passing != null) {
      sent.add(passing);
    }
  }

  private static ClientRequest.Delete deleteOf(TestRelease release, int attempt) {
    return new ClientRequest.Delete("delete-" + release.group.id().name() + "-" + attempt, release.group.id());
  }

  private boolean released(TestRelease release) {
    return sent.stream().flatMap(d -> d.messages().stream())
        .anyMatch(m -> m instanceof Delete d && d.group().equals(release.group));
  }

  private TestRelease group(String name, boolean waitsItsAllowance) {
    TestRelease release = new TestRelease(name, waitsItsAllowance);
    releases.put(release.group.id(), release);
    return release;
  }

  @Test
  void aDeletedGroupsReleasesAreHeldUntilItsCommitsAreDurableThenLeave() throws Exception {
    GroupDeletes deletes = deletes(GroupDeletesTest::letOut);
    TestRelease slow = group("slow", false);
    deletes.delete(deleteOf(slow, 1));
    engineReleases(slow);
    assertThat(released(slow)).as("held while a commit of the group is missing from HBase").isFalse();
    assertThat(deletes.held()).isEqualTo(1);

    slow.durable.set(true);
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> released(slow));
    assertThat(deletes.held()).isZero();
  }

  /**
   * Issue 53, hole 5: the wiring of a delete's held releases through the writer's halt. A halted server's word may
   * be stale (its leader region's next host may already lead the group), so the releases stay with that host.
   */
  @Test
  void aHaltedServerKeepsADeletedGroupsReleasesForTheLeadersNextHost() throws Exception {
    StepWriter writer = new StepWriter("test", changes -> { }, () -> { }, (why, e) -> { },
        new FenceUpdates(new HostedRegions(),
            new SkewSafeRelease(new HostedRegions(), System::currentTimeMillis, 1_000)),
        new GStoreMetrics(MetricRegistries.global().create(
            new MetricRegistryInfo("GroupDeletesTest", "test", "test", "test", false))),
        sent::add, reply -> { }, (requestId, e) -> { });
    writers.add(writer);
    GroupDeletes deletes = deletes(writer::letOut);
    TestRelease group = group("halted", false);
    deletes.delete(deleteOf(group, 1));
    engineReleases(group);

    writer.halt("planted: a closing region could not drain in time");
    group.durable.set(true);
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> group.attempts.get() >= 2);
    Awaitility.await("a halted server sends no release, now or at a later try")
        .during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(5)).until(() -> !released(group));
    assertThat(deletes.held()).as("the group's releases stay held").isEqualTo(1);
  }

  /**
   * Issue 54, item 6: every delete call (a client's retries included) started a retry chain of its own on the one
   * release thread, each waiting the whole endpoint wait per try, so a group with a commit stuck out of HBase held
   * every other deleted group's releases back by its number of calls times the wait.
   */
  @Test
  void aStuckGroupsRetriedDeletesHoldNoOtherGroupsReleasesBack() throws Exception {
    GroupDeletes deletes = deletes(GroupDeletesTest::letOut);
    TestRelease stuck = group("stuck", true);
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (int attempt = 1; attempt <= 5; attempt++) { // the client's retries, each on a handler thread
      int n = attempt;
      calls.add(CompletableFuture.runAsync(() -> {
        try {
          deletes.delete(deleteOf(stuck, n));
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }));
    }
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get();

    TestRelease other = group("other", false);
    deletes.delete(deleteOf(other, 1)); // fails at once: its retry is queued behind the stuck group's
    engineReleases(other);
    other.durable.set(true);
    long durableAt = System.nanoTime();

    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> released(other));
    long tookMillis = (System.nanoTime() - durableAt) / 1_000_000;
    assertThat(tookMillis).as("the other group's releases leave within about one retry interval of being durable")
        .isLessThan(3_000);
    int attemptsBefore = stuck.attempts.get();
    long since = System.nanoTime();
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> stuck.attempts.get() >= attemptsBefore + 2);
    double seconds = (System.nanoTime() - since) / 1e9;
    assertThat(seconds).as("one retry chain for the stuck group (a try a second), not one per call (five a second)")
        .isGreaterThan(0.9);
    assertThat(released(stuck)).isFalse();
  }
}
