package org.gstore.cli.top;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.testing.GStoreMiniCluster;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gstore top} in a pseudo-terminal (tmux) against a running cluster with a group committing: the screen is
 * read as an operator would, and its keys are pressed. Needs tmux ({@code .ci/run} installs it).
 */
@WithMiniCluster(regionServers = 2)
class TopIT {
  private static final byte[] CF = Bytes.toBytes("f");

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void theLiveViewShowsTheBusyGroupFirstAndItsServerCommittingAndAnswersItsKeys(GStoreMiniCluster cluster,
      @TempDir Path dir) throws Exception {
    assumeTrue(run(List.of("sh", "-c", "command -v tmux")).exitValue() == 0, "tmux is not installed");
    TableName table = TableName.valueOf("top_it");
    cluster.createTable(table, new byte[][] {CF}, null);
    Path site = cluster.writeSiteFile(dir.resolve("hbase-site.xml"));
    Path launcher = dir.resolve("gstore");
    Files.writeString(launcher, "#!/bin/sh\nexec java -cp '" + System.getProperty("java.class.path")
        + "' org.gstore.cli.GStore \"$@\"\n", StandardCharsets.UTF_8);
    launcher.toFile().setExecutable(true);
    String session = "gstore-top-it-" + ProcessHandle.current().pid();
    AtomicBoolean committing = new AtomicBoolean(true);
    AtomicLong commits = new AtomicLong();
    java.util.concurrent.atomic.AtomicReference<Exception> lastError =
        new java.util.concurrent.atomic.AtomicReference<>();
    try (GStoreClient client = GStoreClient.create(cluster.getConnection())) {
      KeyGroup busy = client.createGroup(GroupSpec.builder().id("busy").leader(table, Bytes.toBytes("b0"))
          .members(table, rows("b", 4)).lease(Duration.ZERO).build());
      KeyGroup idle = client.createGroup(GroupSpec.builder().id("idle").leader(table, Bytes.toBytes("i0"))
          .members(table, rows("i", 3)).lease(Duration.ZERO).build());
      Thread writer = new Thread(() -> {
        while (committing.get()) {
          try {
            busy.transact(txn -> {
              txn.put(table, new Put(Bytes.toBytes("b1")).addColumn(CF, CF, Bytes.toBytes(commits.get())));
              return null;
            });
            commits.incrementAndGet();
          } catch (java.io.IOException e) {
            // a transient refusal (a region busy opening, a conflict) must not end the load: the view's rate would
            // then be zero for a reason the view has nothing to do with; if every call fails, the rate is zero
            // and the assertions below fail, naming the last error (transact backs off by itself)
            lastError.set(e);
          }
        }
      }, "top-it-writer");
      writer.start();
      try {
        assertThat(run(List.of("tmux", "new-session", "-d", "-s", session, "-x", "220", "-y", "40",
            launcher + " top --conf " + site + " 2>" + dir.resolve("stderr") + "; echo $? >"
                + dir.resolve("exit") + "; sleep 60")).exitValue()).isZero();

        // the busy group's commits are counted and it is first (busiest by commits/s), its server commits
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
          List<String> screen = screen(session);
          assertThat(screen.get(0)).startsWith("gstore top - ").contains("2 region servers, 2 groups (2 shown)")
              .contains("sort: commits/s descending");
          List<String> groups = rowsAfter(screen, "GROUP");
          assertThat(groups).hasSize(2);
          assertThat(groups.get(0)).startsWith(busy.id().toString()).contains("ACTIVE");
          assertThat(cell(screen, "GROUP", groups.get(0), "COMMITS/S")).isPositive();
          assertThat(cell(screen, "GROUP", groups.get(0), "COMMITS")).isPositive();
          assertThat(groups.get(1)).startsWith(idle.id().toString());
          // the mini cluster's region servers share one JVM, so each info server shows the JVM's G-Store metrics:
          // the servers' commits and groups added up (GaugeSources), never a dead registry's zeros
          assertThat(rowsAfter(screen, "SERVER")).hasSize(2).anySatisfy(s -> {
            assertThat(cell(screen, "SERVER", s, "COMMITS/S")).isPositive();
            assertThat(cell(screen, "SERVER", s, "GROUPS")).isPositive();
          });
        });

        press(session, "s"); // commits/s -> commits
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
            assertThat(screen(session).get(0)).contains("sort: commits descending"));
        press(session, "/", "i", "d", "l", "e", "Enter");
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
          List<String> screen = screen(session);
          assertThat(screen.get(0)).contains("(1 shown)").contains("filter: idle");
          assertThat(rowsAfter(screen, "GROUP")).singleElement().asString().startsWith(idle.id().toString());
        });
        press(session, "q");
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
            assertThat(dir.resolve("exit")).exists().content().isEqualToIgnoringWhitespace("0"));
      } finally {
        committing.set(false);
        writer.join(10_000);
        run(List.of("tmux", "kill-session", "-t", session));
      }
      assertThat(commits.get()).as("commits made (last error: %s)", lastError.get()).isPositive();
      busy.delete();
      idle.delete();
    }
  }

  private static List<byte[]> rows(String prefix, int n) {
    List<byte[]> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(Bytes.toBytes(prefix + i));
    }
    return rows;
  }

  private static List<String> screen(String session) throws Exception {
    Process p = run(List.of("tmux", "capture-pane", "-p", "-t", session));
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
  }

  /** The table's rows under the header line starting with {@code header}, up to the next blank line. */
  private static List<String> rowsAfter(List<String> screen, String header) {
    int start = -1;
    for (int i = 0; i < screen.size(); i++) {
      if (screen.get(i).startsWith(header + " ")) {
        start = i + 1;
      }
    }
    List<String> rows = new ArrayList<>();
    for (int i = Math.max(start, 0); start >= 0 && i < screen.size() && !screen.get(i).isBlank()
        && !screen.get(i).startsWith("! "); i++) {
      rows.add(screen.get(i));
    }
    return rows;
  }

  /** A number in {@code row} under {@code column} of the table headed {@code header} (right-aligned columns). */
  private static double cell(List<String> screen, String header, String row, String column) {
    String head = screen.stream().filter(l -> l.startsWith(header + " ")).findFirst().orElseThrow();
    int end = head.indexOf(" " + column + " ") >= 0 ? head.indexOf(" " + column + " ") + column.length() + 1
        : head.indexOf(" " + column) + column.length() + 1;
    int start = row.lastIndexOf(' ', end - 1) + 1;
    String value = row.substring(start, Math.min(end, row.length())).trim();
    return value.equals("-") ? Double.NaN : Double.parseDouble(value);
  }

  private static void press(String session, String... keys) throws Exception {
    List<String> command = new ArrayList<>(List.of("tmux", "send-keys", "-t", session));
    command.addAll(List.of(keys));
    assertThat(run(command).exitValue()).isZero();
  }

  private static Process run(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.waitFor(30, TimeUnit.SECONDS);
    return p;
  }

}
