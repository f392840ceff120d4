package org.gstore.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.gstore.history.CheckReport.Consistency;
import org.junit.jupiter.api.Test;

/**
 * A hand-written history for every anomaly the checker names: each must be caught, and named so. Clean histories,
 * serial and concurrent, must pass.
 */
class ListAppendCheckerTest {
  private final List<Op> history = new ArrayList<>();

  // ------------------------------------------------------------------------------------------------ one anomaly each

  @Test
  void aWriteCycleIsG0() throws Exception {
    ok(1, append("x", 1), append("y", 1));
    ok(2, append("x", 2), append("y", 2));
    ok(3, read("x", 1, 2), read("y", 2, 1)); // x says 1 then 2, y says 2 then 1
    assertOnly(Consistency.SERIALIZABLE, "G0");
  }

  @Test
  void aReadOfAFailedAppendIsG1a() throws Exception {
    failed(1, append("x", 1));
    ok(2, read("x", 1));
    assertOnly(Consistency.SERIALIZABLE, "G1a");
  }

  @Test
  void aReadOfAnAppendNoTransactionMadeIsG1a() throws Exception {
    ok(1, read("x", 9));
    assertOnly(Consistency.SERIALIZABLE, "G1a");
  }

  @Test
  void aReadInTheMiddleOfAnotherTransactionsAppendsIsG1b() throws Exception {
    ok(1, append("x", 1), append("x", 2));
    ok(2, read("x", 1));
    ok(3, read("x", 1, 2));
    assertOnly(Consistency.SERIALIZABLE, "G1b");
  }

  @Test
  void circularInformationFlowIsG1c() throws Exception {
    ok(1, append("x", 1), read("y", 2));
    ok(2, append("y", 2), read("x", 1)); // each read what the other wrote
    assertOnly(Consistency.SERIALIZABLE, "G1c");
  }

  @Test
  void readSkewIsGSingle() throws Exception {
    ok(1, append("x", 1), append("y", 1));
    ok(2, read("x"), read("y", 1)); // x from before the append, y from after
    ok(3, read("x", 1), read("y", 1));
    assertOnly(Consistency.SERIALIZABLE, "G-single");
  }

  @Test
  void writeSkewIsG2() throws Exception {
    ok(1, read("x"), append("y", 1));
    ok(2, read("y"), append("x", 2)); // each read the other's key before the other's append
    ok(3, read("x", 2), read("y", 1));
    assertOnly(Consistency.SERIALIZABLE, "G2");
  }

  /**
   * One component with a ring of 200 read-write edges (a G2 that no single anti-dependency closes) and, joined to
   * it, one G-single: a search that gives up after a fixed number of anti-dependencies names the component G2.
   */
  @Test
  void aGSinglePastManyAntiDependenciesOfItsComponentIsNamed() throws Exception {
    int ring = 200;
    List<Mop> finalReads = new ArrayList<>();
    for (int i = 0; i < ring; i++) { // T(i) reads its key empty and appends to the next: T(i+1) -rw-> T(i)
      int next = (i + 1) % ring;
      List<Mop> mops = new ArrayList<>(List.of(read("k" + i), append("k" + next, i)));
      if (i == 0) { // joins Ta to the ring: Ta -rw w0-> T0 -rw w1-> Ta
        mops.addAll(List.of(read("w1"), append("w0", 1)));
      }
      ok(i, mops.toArray(Mop[]::new));
      finalReads.add(read("k" + next, i));
    }
    ok(ring, read("y"), read("z", 1), read("w0"), append("w1", 1)); // Ta
    ok(ring + 1, append("y", 1), append("z", 1)); // Tb: Ta -rw y-> Tb -wr z-> Ta, the one G-single
    finalReads.addAll(List.of(read("y", 1), read("w0", 1), read("w1", 1)));
    ok(ring + 2, finalReads.toArray(Mop[]::new)); // shows every key's version order
    CheckReport r = ListAppendChecker.check(history, Consistency.SERIALIZABLE);
    assertThat(r.count("G-single")).as(r.line() + "\n" + r.examples()).isEqualTo(1);
    assertThat(r.count("G2")).as(r.line()).isZero();
  }

  @Test
  void aTransactionThatDoesNotSeeItsOwnAppendIsInternal() throws Exception {
    ok(1, append("x", 1), read("x"));
    ok(2, read("x", 1));
    assertOnly(Consistency.SERIALIZABLE, "internal");
  }

  @Test
  void readsThatNoOrderOfAppendsExplainsAreAnIncompatibleOrder() throws Exception {
    ok(1, append("x", 1));
    ok(2, append("x", 2));
    ok(3, read("x", 1, 2));
    ok(4, read("x", 2));
    assertOnly(Consistency.SERIALIZABLE, "incompatible-order");
  }

  /** Lost breaks real-time order only: serially, the append could come after every read. */
  @Test
  void anAcknowledgedAppendNoLaterReadShowsIsLost() throws Exception {
    ok(1, append("x", 1));
    ok(2, append("x", 2));
    ok(3, read("x", 2)); // begun after both completed: 1 is gone
    CheckReport strict = ListAppendChecker.check(history, Consistency.STRICT_SERIALIZABLE);
    assertThat(strict.count("lost")).as(strict.line()).isEqualTo(1);
    assertThat(strict.verdict()).isEqualTo("serializable");
    assertThat(ListAppendChecker.check(history, Consistency.SERIALIZABLE).valid()).isTrue();
  }

  @Test
  void aReadWithAnElementTwiceIsDuplicatedAndOrdersNothing() throws Exception {
    ok(1, append("x", 1));
    ok(2, append("x", 2));
    ok(3, read("x", 1, 2, 1));
    assertOnly(Consistency.SERIALIZABLE, "duplicated");
  }

  @Test
  void indexesThatDoNotIncreaseAreRefused() {
    history.add(new Op(5, 0, 1, Op.Type.INVOKE, "txn", List.of(append("x", 1))));
    history.add(new Op(5, 1, 1, Op.Type.OK, "txn", List.of(append("x", 1))));
    assertThatThrownBy(() -> ListAppendChecker.check(history, Consistency.SERIALIZABLE))
        .isInstanceOf(HistoryFormatException.class).hasMessageContaining("must increase");
  }

  @Test
  void anElementReadTwiceIsDuplicated() throws Exception {
    ok(1, append("x", 1));
    ok(2, read("x", 1, 1));
    assertOnly(Consistency.SERIALIZABLE, "duplicated");
  }

  /** A read that began after an append completed, yet misses it: serializable (ordered before it), not strictly. */
  @Test
  void aStaleReadBreaksOnlyStrictSerializability() throws Exception {
    ok(1, append("x", 1));
    ok(2, read("x"));
    ok(3, read("x", 1));
    CheckReport strict = ListAppendChecker.check(history, Consistency.STRICT_SERIALIZABLE);
    assertThat(strict.count("G-single")).as(strict.examples().toString()).isEqualTo(1);
    assertThat(strict.verdict()).isEqualTo("serializable");
    assertThat(strict.examples()).singleElement().asString().contains("real-time").contains("-rw x->");
    CheckReport plain = ListAppendChecker.check(history, Consistency.SERIALIZABLE);
    assertThat(plain.valid()).isTrue();
    assertThat(plain.verdict()).isEqualTo("serializable");
  }

  @Test
  void aStalePlainReadIsNotOrderedInRealTime() throws Exception {
    ok(1, append("x", 1));
    plainRead(2, read("x")); // G-Store's plain reads of grouped rows may be stale
    ok(3, read("x", 1));
    assertThat(ListAppendChecker.check(history, Consistency.STRICT_SERIALIZABLE).line())
        .endsWith("verdict=strict-serializable");
  }

  /** The delete of a group lands its commits and releases its rows: a plain read after it must see them. */
  @Test
  void aPlainReadAfterTheGroupsDeleteReturnedMustSeeItsAppends() throws Exception {
    inGroup("g1", () -> ok(1, append("x", 1)));
    inGroup("g1", () -> ok(2, append("x", 2)));
    groupOp(1, "delete", "g1", Op.Type.OK);
    plainRead(3, read("x", 1)); // began after the delete returned, and misses 2
    ok(4, read("x", 1, 2));
    CheckReport r = ListAppendChecker.check(history, Consistency.STRICT_SERIALIZABLE);
    assertThat(r.count("G-single")).as(r.line() + "\n" + r.examples()).isEqualTo(1);
    assertThat(r.examples()).singleElement().asString().contains("real-time");
    assertThat(ListAppendChecker.check(history, Consistency.SERIALIZABLE).valid()).isTrue();
  }

  @Test
  void anAppendNoPlainReadAfterItsGroupsDeleteShowsIsLost() throws Exception {
    inGroup("g1", () -> ok(1, append("x", 1)));
    groupOp(1, "delete", "g1", Op.Type.OK);
    plainRead(2, read("x"));
    CheckReport r = ListAppendChecker.check(history, Consistency.STRICT_SERIALIZABLE);
    assertThat(r.count("lost")).as(r.line() + "\n" + r.examples()).isEqualTo(1);
    assertThat(r.examples()).singleElement().asString().contains("its group's delete returned");
    assertThat(r.verdict()).isEqualTo("serializable"); // only real time orders the read after the append
  }

  @Test
  void aPlainReadBeforeTheDeleteReturnedOrOfAGroupNotDeletedMayBeStale() throws Exception {
    inGroup("g1", () -> ok(1, append("x", 1)));
    inGroup("g2", () -> ok(2, append("y", 1)));
    history.add(new Op(history.size(), history.size(), 1, Op.Type.INVOKE, "delete", List.of(), "g1"));
    plainRead(3, read("x")); // during the delete
    history.add(new Op(history.size(), history.size(), 1, Op.Type.OK, "delete", List.of(), "g1"));
    groupOp(2, "delete", "g2", Op.Type.FAIL); // not deleted by this delete (its lease, say): no promise
    plainRead(3, read("y"));
    ok(4, read("x", 1), read("y", 1));
    assertThat(ListAppendChecker.check(history, Consistency.STRICT_SERIALIZABLE).line())
        .endsWith("verdict=strict-serializable");
  }

  @Test
  void anUnknownOutcomeMayOrMayNotHaveHappened() throws Exception {
    unknown(1, append("x", 1));
    unknown(2, append("x", 2));
    ok(3, read("x", 2)); // 2 happened, 1 did not (yet): both fine
    assertThat(ListAppendChecker.check(history, Consistency.STRICT_SERIALIZABLE).valid()).isTrue();
  }

  // ------------------------------------------------------------------------------------------------ clean histories

  @Test
  void aConcurrentStrictlySerializableHistoryPasses() throws Exception {
    CheckReport r = ListAppendChecker.check(SerialDatabase.history(10_000, 8, 40, 7), Consistency.STRICT_SERIALIZABLE);
    assertThat(r.line()).as(r.examples().toString()).contains("G0=0 G1a=0 G1b=0 G1c=0 G-single=0 G2=0 internal=0"
        + " incompatible-order=0 lost=0 duplicated=0 verdict=strict-serializable");
  }

  @Test
  void theSameHistoryWithOneWriteSkewPlantedIsCaught() throws Exception {
    history.addAll(SerialDatabase.history(10_000, 8, 40, 7));
    long base = history.size() + 1_000;
    // two new keys, after everything else: a write skew between processes of their own
    ok(1_001, read("skew-a"), append("skew-b", base));
    ok(1_002, read("skew-b"), append("skew-a", base + 1));
    ok(1_003, read("skew-a", base + 1), read("skew-b", base));
    CheckReport r = ListAppendChecker.check(history, Consistency.STRICT_SERIALIZABLE);
    assertThat(r.count("G2")).as(r.line()).isEqualTo(1);
    assertThat(r.verdict()).isEqualTo("anomalies");
  }

  /**
   * What the checker costs, printed: written, read back and checked, as {@code gstore check-history} does. Half a
   * million operations (250,000 transactions) by default; {@code -Dgstore.history.scale.txns=500000} times a million.
   */
  @Test
  void aHistoryOfHalfAMillionOperationsIsReadAndChecked(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path file = dir.resolve("history.jsonl");
    List<Op> written = SerialDatabase.history(Integer.getInteger("gstore.history.scale.txns", 250_000), 16, 300, 11);
    java.nio.file.Files.write(file, written.stream().map(HistoryWriter::line).toList());
    long start = System.nanoTime();
    List<Op> read = HistoryReader.read(file);
    long readMillis = (System.nanoTime() - start) / 1_000_000;
    CheckReport r = ListAppendChecker.check(read, Consistency.STRICT_SERIALIZABLE);
    long totalMillis = (System.nanoTime() - start) / 1_000_000;
    System.out.printf("history checker: %d operations (%d MiB) read in %d ms, read and checked in %d ms%n",
        read.size(), java.nio.file.Files.size(file) >> 20, readMillis, totalMillis);
    assertThat(read).hasSize(written.size());
    assertThat(r.verdict()).as(r.line()).isEqualTo("strict-serializable");
  }

  @Test
  void duplicateAppendsMakeAHistoryTheCheckerCannotRead() {
    history.add(new Op(0, 0, 1, Op.Type.INVOKE, "txn", List.of(append("x", 1))));
    history.add(new Op(1, 1, 1, Op.Type.OK, "txn", List.of(append("x", 1))));
    history.add(new Op(2, 2, 2, Op.Type.INVOKE, "txn", List.of(append("x", 1))));
    history.add(new Op(3, 3, 2, Op.Type.OK, "txn", List.of(append("x", 1))));
    assertThatThrownBy(() -> ListAppendChecker.check(history, Consistency.SERIALIZABLE))
        .isInstanceOf(HistoryFormatException.class).hasMessageContaining("twice");
  }

  @Test
  void aCompletionWithoutItsInvocationIsRefused() {
    history.add(new Op(0, 0, 1, Op.Type.OK, "txn", List.of(append("x", 1))));
    assertThatThrownBy(() -> ListAppendChecker.check(history, Consistency.SERIALIZABLE))
        .isInstanceOf(HistoryFormatException.class).hasMessageContaining("did not invoke");
  }

  // ------------------------------------------------------------------------------------------------ the history DSL

  private static final List<String> KINDS = List.of("G0", "G1a", "G1b", "G1c", "G-single", "G2", "internal",
      "incompatible-order", "lost", "duplicated");

  private void assertOnly(Consistency consistency, String kind) throws Exception {
    CheckReport r = ListAppendChecker.check(history, consistency);
    assertThat(r.count(kind)).as(r.line() + "\n" + r.examples()).isPositive();
    for (String other : KINDS) {
      if (!other.equals(kind)) {
        assertThat(r.count(other)).as("nothing else found: " + r.line() + "\n" + r.examples()).isZero();
      }
    }
    assertThat(r.verdict()).isEqualTo("anomalies");
    assertThat(r.examples()).isNotEmpty();
  }

  private static Mop append(String key, long value) {
    return Mop.append(key, value);
  }

  private static Mop read(String key, long... values) {
    return Mop.read(key, values);
  }

  private void ok(long process, Mop... completed) {
    run(process, "txn", Op.Type.OK, completed);
  }

  private void plainRead(long process, Mop... completed) {
    run(process, "read", Op.Type.OK, completed);
  }

  private void failed(long process, Mop... mops) {
    run(process, "txn", Op.Type.FAIL, mops);
  }

  private void unknown(long process, Mop... mops) {
    run(process, "txn", Op.Type.INFO, mops);
  }

  /** The group the operations {@code body} adds are of (null: none). */
  private String group;

  private void inGroup(String name, Runnable body) {
    group = name;
    try {
      body.run();
    } finally {
      group = null;
    }
  }

  /** A create or delete of {@code name}, invoked and completed. */
  private void groupOp(long process, String f, String name, Op.Type outcome) {
    history.add(new Op(history.size(), history.size(), process, Op.Type.INVOKE, f, List.of(), name));
    history.add(new Op(history.size(), history.size(), process, outcome, f, List.of(), name));
  }

  /** Invokes and completes one operation, after everything before it. */
  private void run(long process, String f, Op.Type outcome, Mop... completed) {
    List<Mop> invoked = new ArrayList<>();
    for (Mop m : completed) {
      invoked.add(m.isRead() ? Mop.read(m.key(), null) : m);
    }
    history.add(new Op(history.size(), history.size(), process, Op.Type.INVOKE, f, invoked, group));
    history.add(new Op(history.size(), history.size(), process, outcome, f,
        outcome == Op.Type.OK ? List.of(completed) : invoked, group));
  }

  /**
   * A database that runs each transaction atomically at a random moment between its invocation and its
   * completion, with several processes at once: its histories are strictly serializable by construction.
   */
  static final class SerialDatabase {
    static final int MAX_APPENDS_PER_KEY = 64;

    static List<Op> history(int txns, int processes, int keys, long seed) {
      Random rnd = new Random(seed);
      List<Op> out = new ArrayList<>();
      java.util.Map<String, List<Long>> lists = new java.util.HashMap<>();
      List<Mop>[] pending = newPending(processes);
      int[] generation = new int[keys];
      int[] appends = new int[keys];
      long nextValue = 1;
      int started = 0;
      while (started < txns || java.util.Arrays.stream(pending).anyMatch(java.util.Objects::nonNull)) {
        int p = rnd.nextInt(processes);
        if (pending[p] == null) {
          if (started == txns) {
            continue;
          }
          started++;
          List<Mop> mops = new ArrayList<>();
          for (int i = 0, n = 1 + rnd.nextInt(4); i < n; i++) {
            int slot = rnd.nextInt(keys);
            String key = "k" + slot + "-" + generation[slot];
            if (rnd.nextBoolean()) {
              mops.add(Mop.read(key, null));
            } else {
              mops.add(Mop.append(key, nextValue++));
              if (++appends[slot] == MAX_APPENDS_PER_KEY) { // lists stay short: the slot takes a fresh key
                appends[slot] = 0;
                generation[slot]++;
              }
            }
          }
          out.add(new Op(out.size(), out.size(), p, Op.Type.INVOKE, "txn", mops));
          pending[p] = mops;
        } else { // it takes effect now, all at once, and completes
          List<Mop> done = new ArrayList<>();
          for (Mop m : pending[p]) {
            List<Long> list = lists.computeIfAbsent(m.key(), k -> new ArrayList<>());
            if (m.isRead()) {
              done.add(Mop.read(m.key(), list.stream().mapToLong(Long::longValue).toArray()));
            } else {
              list.add(m.appended());
              done.add(m);
            }
          }
          out.add(new Op(out.size(), out.size(), p, Op.Type.OK, "txn", done));
          pending[p] = null;
        }
      }
      return out;
    }

    @SuppressWarnings("unchecked")
    private static List<Mop>[] newPending(int processes) {
      return new List[processes];
    }
  }
}
