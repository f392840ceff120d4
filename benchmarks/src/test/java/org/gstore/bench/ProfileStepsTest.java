package org.gstore.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.jfr.Recording;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.ClusterKeys;
import org.gstore.common.wire.OwnerToken;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real flight recording of a thread signing owner tokens, beside a benchmark client thread that is left out. */
class ProfileStepsTest {
  /** Fifty sampling periods. */
  private static final Duration WINDOW = Duration.ofMillis(500);
  private static volatile long sink;

  @Test
  void samplesAreChargedToTheInnermostGStoreMethodAndClientsAreLeftOut(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("profile.jfr");
    AtomicBoolean stop = new AtomicBoolean();
    OwnerToken tokens = new OwnerToken(new byte[32]);
    GroupRef group = new GroupRef(new GroupId("g", Key.of("t", "leader")), new Uid(new NodeId("n"), 1));
    Thread server = new Thread(() -> { // a bounded amount of work, long enough for many 10 ms samples
      for (long i = 0; i < 300_000; i++) {
        tokens.sign(group, Key.of("t", "row" + i));
      }
      stop.set(true);
    }, "server-work");
    Thread client = new Thread(() -> {
      long x = 0;
      while (!stop.get()) {
        x += Long.numberOfTrailingZeros(x + 1);
      }
    }, "bench-client-0");
    try (Recording recording = new Recording()) {
      recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
      recording.start();
      server.start();
      client.start();
      server.join();
      client.join();
      recording.stop();
      recording.dump(file);
    }

    ProfileSteps profile = ProfileSteps.of(file);
    assertThat(profile.clientSamples()).as("the client thread was sampled, and left out").isPositive();
    assertThat(profile.gstoreMethods()).as("the signing thread's samples, by G-Store method").isNotEmpty()
        .allSatisfy((method, count) -> assertThat(method).startsWith("common."));
    assertThat(profile.gstoreMethods().keySet()).anyMatch(m -> m.startsWith("common.wire.OwnerToken."));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    profile.print(new PrintStream(out, true, StandardCharsets.UTF_8), 5);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("innermost G-Store method", "common.");
  }

  @Test
  void onlySamplesInsideAMeasuredPointsWindowCount(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("windows.jfr");
    OwnerToken tokens = new OwnerToken(new byte[32]);
    GroupRef group = new GroupRef(new GroupId("g", Key.of("t", "leader")), new Uid(new NodeId("n"), 1));
    try (Recording recording = new Recording()) {
      recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
      recording.enable(MeasuredPoint.class);
      recording.start();
      for (long i = 0; i < 300_000; i++) { // outside any window: a warm-up's work
        tokens.sign(group, Key.of("t", "row" + i));
      }
      MeasuredPoint window = new MeasuredPoint("test point");
      window.begin();
      // Inside: another G-Store method, one that spends its time in large JDK callees (HMACs). A cheap loop body
      // once left no sample here at all: C2 inlined it, and JFR charged the samples to this test's own frame.
      // A fixed time rather than a fixed count, too, so that a fast machine still gives fifty sampling periods.
      long derived = 0;
      long end = System.nanoTime() + WINDOW.toNanos();
      for (int i = 0; System.nanoTime() < end; i++) {
        derived += ClusterKeys.derive(new byte[] {(byte) i}, ClusterKeys.DATAGRAMS)[0];
      }
      window.commit();
      recording.stop();
      recording.dump(file);
      sink = derived; // keeps the loop's work from being optimized away
    }

    ProfileSteps profile = ProfileSteps.of(file);
    assertThat(profile.windows()).isEqualTo(1);
    assertThat(profile.gstoreMethods()).as("the window's samples").isNotEmpty()
        .allSatisfy((method, count) -> assertThat(method).startsWith("common.wire.ClusterKeys."));
  }
}
