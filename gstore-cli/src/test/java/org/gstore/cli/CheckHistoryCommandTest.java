package org.gstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckHistoryCommandTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) throws Exception {
    return CheckHistoryCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private static String op(int index, int process, String type, String value) {
    return "{\"index\":" + index + ",\"time\":" + index + ",\"process\":" + process + ",\"type\":\"" + type
        + "\",\"f\":\"txn\",\"value\":" + value + "}";
  }

  @Test
  void aCleanHistoryExitsZeroWithItsVerdict(@TempDir Path dir) throws Exception {
    Path file = Files.write(dir.resolve("clean.jsonl"), List.of(
        op(0, 1, "invoke", "[[\"append\",\"x\",1]]"), op(1, 1, "ok", "[[\"append\",\"x\",1]]"),
        op(2, 2, "invoke", "[[\"r\",\"x\",null]]"), op(3, 2, "ok", "[[\"r\",\"x\",[1]]]")));
    assertThat(run(file.toString())).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("history ops=2 txns=2 ok=2 fail=0 info=0 G0=0")
        .contains("verdict=strict-serializable");
  }

  @Test
  void anomaliesExitOneAndAreShownWithTheirIndexes(@TempDir Path dir) throws Exception {
    Path file = Files.write(dir.resolve("stale.jsonl"), List.of(
        op(0, 1, "invoke", "[[\"append\",\"x\",1]]"), op(1, 1, "ok", "[[\"append\",\"x\",1]]"),
        op(2, 2, "invoke", "[[\"r\",\"x\",null]]"), op(3, 2, "ok", "[[\"r\",\"x\",[]]]"),
        op(4, 3, "invoke", "[[\"r\",\"x\",null]]"), op(5, 3, "ok", "[[\"r\",\"x\",[1]]]")));
    assertThat(run(file.toString())).isEqualTo(1);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("G-single=1").contains("verdict=serializable")
        .contains("index 2-3").contains("index 0-1");
    out.reset();
    assertThat(run(file.toString(), "--consistency", "serializable")).as("serializable, not strictly").isZero();
  }

  @Test
  void aHistoryItCannotReadExitsTwoNamingTheLine(@TempDir Path dir) throws Exception {
    Path file = Files.write(dir.resolve("bad.jsonl"), List.of(op(0, 1, "invoke", "[]"), "{not json"));
    assertThat(run(file.toString())).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("line 2").contains("not valid JSON");
    assertThat(run(dir.resolve("missing.jsonl").toString())).isEqualTo(2);
    assertThat(run(file.toString(), "--consistency", "linearizable")).isEqualTo(2);
  }

  @Test
  void aHistoryWithNothingToCheckExitsTwo(@TempDir Path dir) throws Exception {
    Path empty = Files.write(dir.resolve("empty.jsonl"), List.of());
    assertThat(run(empty.toString())).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("nothing to check");
    Path failedOnly = Files.write(dir.resolve("failed.jsonl"), List.of(
        op(0, 1, "invoke", "[[\"append\",\"x\",1]]"), op(1, 1, "fail", "[[\"append\",\"x\",1]]")));
    assertThat(run(failedOnly.toString())).isEqualTo(2);
    assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("verdict=");
  }

  /** Skipping what it does not know once hid a write skew written with "f":"Txn". */
  @Test
  void anOperationItDoesNotKnowExitsTwoNamingTheLine(@TempDir Path dir) throws Exception {
    Path file = Files.write(dir.resolve("skew.jsonl"), List.of(
        op(0, 1, "invoke", "[[\"append\",\"x\",1]]"), op(1, 1, "ok", "[[\"append\",\"x\",1]]"),
        op(2, 2, "invoke", "[[\"r\",\"x\",null]]").replace("\"txn\"", "\"Txn\"")));
    assertThat(run(file.toString())).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("line 3").contains("not \"Txn\"");
  }

  @Test
  void aTornLastLineIsReadAroundWithAWarning(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("torn.jsonl");
    Files.writeString(file, String.join("\n", op(0, 1, "invoke", "[[\"append\",\"x\",1]]"),
        op(1, 1, "ok", "[[\"append\",\"x\",1]]"), op(2, 2, "invoke", "[[\"r\",\"x\",null]]"),
        "{\"index\":3,\"time\":3,\"proc"));
    assertThat(run(file.toString())).isZero();
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("warning: line 4 is cut short");
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("txns=2").contains("verdict=strict-serializable");
  }
}
