package org.gstore.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryReaderTest {
  @Test
  void readsJepsenListAppendLinesAndWhatTheWriterWrites(@TempDir Path dir) throws Exception {
    Op jepsen = HistoryReader.parse("{\"index\":9,\"time\":123456789,\"process\":2,\"type\":\"ok\",\"f\":\"txn\","
        + "\"value\":[[\"r\",\"k12\",[3,5]],[\"append\",\"k40\",7]],\"extra\":{\"ignored\":[1]}}", 1);
    assertThat(jepsen.index()).isEqualTo(9);
    assertThat(jepsen.type()).isEqualTo(Op.Type.OK);
    assertThat(jepsen.value()).hasSize(2);
    assertThat(jepsen.value().get(0).read()).containsExactly(3, 5);
    assertThat(jepsen.value().get(1).appended()).isEqualTo(7);

    Path file = dir.resolve("h.jsonl");
    Op create = new Op(0, 5, 1, Op.Type.INVOKE, "create", List.of(), "append-7");
    Op invoke = new Op(1, 6, 1, Op.Type.INVOKE, "txn", List.of(Mop.read("k1", null), Mop.append("k2", 4)));
    Files.write(file, List.of(HistoryWriter.line(create), "", HistoryWriter.line(invoke)));
    List<Op> read = HistoryReader.read(file);
    assertThat(read).hasSize(2);
    assertThat(read.get(0).f()).isEqualTo("create");
    assertThat(read.get(0).group()).isEqualTo("append-7");
    assertThat(read.get(1).group()).isNull();
    assertThat(read.get(1).value().get(0).read()).isNull();
    assertThat(read.get(1).value().get(1)).isEqualTo(invoke.value().get(1));
  }

  @Test
  void aLineItCannotReadIsNamedWithWhatIsWrong(@TempDir Path dir) throws Exception {
    assertRefused(dir, "{\"index\":1,\"process\":2,\"type\":\"ok\"", "line 2: not valid JSON");
    assertRefused(dir, "{\"index\":1,\"process\":2,\"type\":\"done\",\"f\":\"txn\"}", "line 2: type must be");
    assertRefused(dir, "{\"index\":1,\"type\":\"ok\",\"f\":\"txn\"}", "line 2: an operation needs index, process,"
        + " type and f; this one has no process");
    assertRefused(dir, "{\"index\":1,\"process\":2,\"type\":\"ok\",\"f\":\"Txn\"}", "line 2: f must be txn, read,"
        + " create or delete, not \"Txn\"");
    assertRefused(dir, "{\"index\":99999999999999999999,\"process\":2,\"type\":\"ok\",\"f\":\"txn\"}",
        "line 2: index is out of range");
    assertRefused(dir, "{\"index\":1,\"process\":2,\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"r\",\"k\","
        + "[1,99999999999999999999]]]}", "line 2: an element of a read is out of range");
    assertRefused(dir, "{\"index\":1,\"process\":2,\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"w\",\"k\",1]]}",
        "line 2: a micro-operation is r or append");
    assertRefused(dir, "[1,2]", "line 2: not a JSON object");
  }

  @Test
  void operationsOfNoClientProcessArePassedOver(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("nemesis.jsonl");
    Files.write(file, List.of(
        "{\"index\":0,\"process\":\"nemesis\",\"type\":\"info\",\"f\":\"start\",\"value\":\"majority\"}",
        "{\"index\":1,\"process\":1,\"type\":\"invoke\",\"f\":\"txn\",\"value\":[[\"r\",\"x\",null]]}"));
    assertThat(HistoryReader.read(file)).singleElement().extracting(Op::index).isEqualTo(1L);
  }

  @Test
  void aTornLastLineIsPassedOverWithAWarning(@TempDir Path dir) throws Exception {
    String whole = "{\"index\":0,\"process\":1,\"type\":\"invoke\",\"f\":\"txn\",\"value\":[]}";
    Path torn = dir.resolve("torn.jsonl");
    Files.writeString(torn, whole + "\n" + "{\"index\":1,\"process\":1,\"ty");
    History read = HistoryReader.readHistory(torn);
    assertThat(read.ops()).singleElement().extracting(Op::index).isEqualTo(0L);
    assertThat(read.warnings()).singleElement().asString().startsWith("line 2 is cut short");

    Path endedBadly = dir.resolve("ended.jsonl"); // the same line, ended: written whole, and wrong
    Files.writeString(endedBadly, whole + "\n" + "{\"index\":1,\"process\":1,\"ty\n");
    assertThatThrownBy(() -> HistoryReader.readHistory(endedBadly)).isInstanceOf(HistoryFormatException.class)
        .hasMessageStartingWith("line 2: not valid JSON");
    Path tornInside = dir.resolve("inside.jsonl"); // only the last line may be torn
    Files.writeString(tornInside, "{\"index\":1,\"process\":1,\"ty\n" + whole);
    assertThatThrownBy(() -> HistoryReader.readHistory(tornInside)).isInstanceOf(HistoryFormatException.class)
        .hasMessageStartingWith("line 1: not valid JSON");
  }

  @Test
  void aProblemFoundAfterParsingIsNamedByItsLine(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("orphan.jsonl");
    Files.write(file, List.of("", "{\"index\":0,\"process\":1,\"type\":\"invoke\",\"f\":\"txn\",\"value\":[]}",
        "{\"index\":1,\"process\":2,\"type\":\"ok\",\"f\":\"txn\",\"value\":[]}"));
    History read = HistoryReader.readHistory(file);
    assertThatThrownBy(() -> ListAppendChecker.check(read.ops(), CheckReport.Consistency.SERIALIZABLE))
        .isInstanceOfSatisfying(HistoryFormatException.class, e -> assertThat(read.located(e))
            .hasMessage("line 3 (index 1): process 2 completes txn it did not invoke"));
  }

  private static void assertRefused(Path dir, String badLine, String message) throws Exception {
    Path file = dir.resolve("bad.jsonl");
    Files.write(file, List.of("{\"index\":0,\"process\":1,\"type\":\"invoke\",\"f\":\"txn\",\"value\":[]}", badLine));
    assertThatThrownBy(() -> HistoryReader.read(file)).isInstanceOf(HistoryFormatException.class)
        .hasMessageStartingWith(message).satisfies(e -> assertThat(((HistoryFormatException) e).line()).isEqualTo(2));
  }
}
