package org.gstore.chaos;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.RowGroupedException;
import org.gstore.history.HistoryWriter;
import org.gstore.history.Mop;
import org.gstore.history.Op;

/**
 * The list-append workload's plain operations, outside any group through HBase's own client, each recorded in the
 * history as it is invoked and as it completes: single-key reads ({@code read}), and single-row appends that are
 * transactions of their own ({@code txn}), which G-Store refuses while a group holds the row.
 */
final class PlainOperations {
  private final HistoryWriter history;
  private final AtomicLong nextValue;
  private final Consumer<String> appendInvoked;
  private final AtomicLong appendsOk = new AtomicLong();
  private final AtomicLong appendsRefused = new AtomicLong();

  /**
   * @param nextValue where unique appended values come from, shared with the workload's transactions
   * @param appendInvoked told of each key appended to (for the key's rotation)
   */
  PlainOperations(HistoryWriter history, AtomicLong nextValue, Consumer<String> appendInvoked) {
    this.history = history;
    this.nextValue = nextValue;
    this.appendInvoked = appendInvoked;
  }

  long appendsOk() {
    return appendsOk.get();
  }

  /** Appends G-Store refused because a group held the row. */
  long appendsRefused() {
    return appendsRefused.get();
  }

  /** A plain {@code Get} of {@code key}; one that fails changed nothing ({@code fail}). */
  void read(Table t, long process, String key) throws IOException {
    history.record(process, Op.Type.INVOKE, "read", List.of(Mop.read(key, null)));
    Mop done;
    try {
      done = Mop.read(key, ListRow.decode(t.get(new Get(Bytes.toBytes(key)))));
    } catch (IOException | RuntimeException e) {
      history.record(process, Op.Type.FAIL, "read", List.of(Mop.read(key, null)));
      return;
    }
    history.record(process, Op.Type.OK, "read", List.of(done));
  }

  /**
   * A plain append: the list read, then written with the value appended only if it is still what was read (one
   * atomic {@code checkAndMutate}). Recorded {@code fail} when the list changed or G-Store refused it as grouped,
   * {@code info} on any other error (it may have been written). {@code t} must make one attempt per call: a retry
   * after an applied attempt whose answer was lost fails its check although the append happened.
   */
  void append(Table t, long process, String key) throws IOException {
    byte[] row = Bytes.toBytes(key);
    long[] list;
    try {
      list = ListRow.decode(t.get(new Get(row)));
    } catch (IOException | RuntimeException e) {
      return; // nothing invoked yet
    }
    appendInvoked.accept(key);
    long value = nextValue.getAndIncrement();
    List<Mop> invoked = List.of(Mop.read(key, null), Mop.append(key, value));
    history.record(process, Op.Type.INVOKE, "txn", invoked);
    long[] appended = Arrays.copyOf(list, list.length + 1);
    appended[list.length] = value;
    CheckAndMutate.Builder check = CheckAndMutate.newBuilder(row);
    CheckAndMutate.Builder ifUnchanged = list.length == 0 ? check.ifNotExists(ListRow.CF, ListRow.LIST)
        : check.ifEquals(ListRow.CF, ListRow.LIST, ListRow.encode(list));
    boolean written;
    try {
      written = t.checkAndMutate(ifUnchanged.build(ListRow.put(row, appended))).isSuccess();
    } catch (IOException | RuntimeException e) {
      boolean refused = refusedAsGrouped(e);
      if (refused) {
        appendsRefused.incrementAndGet();
      }
      history.record(process, refused ? Op.Type.FAIL : Op.Type.INFO, "txn", invoked);
      return;
    }
    if (!written) { // the list changed since it was read: nothing written
      history.record(process, Op.Type.FAIL, "txn", invoked);
      return;
    }
    appendsOk.incrementAndGet();
    history.record(process, Op.Type.OK, "txn", List.of(Mop.read(key, list), Mop.append(key, value)));
  }

  /** Whether G-Store refused the write because a group holds the row (the refusal may come wrapped). */
  private static boolean refusedAsGrouped(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (RowGroupedException.is(c)) {
        return true;
      }
    }
    return false;
  }
}
