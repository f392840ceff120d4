package org.gstore.history;

import java.util.List;

/**
 * A transaction (or plain read) as a history tells it: its invocation and how it completed.
 *
 * @param id its number in the checker's graph
 * @param type {@code OK}, {@code FAIL}, or {@code INFO} (also when the history ends before it completed)
 * @param plain a plain read outside any group: not ordered in real time
 * @param completeTime -1 when it never completed ({@code INFO})
 * @param mops the completion's micro-operations when it is {@code OK} (reads with their values), else the
 *     invocation's (reads unknown)
 * @param group the G-Store group it ran in, as its invocation says; null if none or not said
 */
record Txn(int id, long process, Op.Type type, boolean plain, long invokeIndex, long completeIndex, long invokeTime,
    long completeTime, List<Mop> mops, String group) {

  /** How a person finds it in the history. */
  String describe() {
    return (plain ? "read" : "txn") + " at index " + invokeIndex + (completeIndex >= 0 ? "-" + completeIndex : "")
        + " (process " + process + ", " + type.json() + ") " + mops;
  }

  /** Pairs each transactional invocation with its completion, in the history's order. */
  static List<Txn> pair(List<Op> history) throws HistoryFormatException {
    java.util.Map<Long, Op> running = new java.util.HashMap<>();
    List<Txn> txns = new java.util.ArrayList<>();
    long lastIndex = Long.MIN_VALUE;
    for (Op op : history) {
      if (op.index() <= lastIndex) {
        throw HistoryFormatException.atIndex(op.index(), "index " + op.index() + " follows index " + lastIndex
            + ": a history's indexes must increase, line after line");
      }
      lastIndex = op.index();
      if (op.type() == Op.Type.INVOKE) {
        if (running.put(op.process(), op) != null) {
          throw HistoryFormatException.atIndex(op.index(), "process " + op.process() + " invokes an operation"
              + " while its last one has not completed");
        }
        continue;
      }
      Op invoke = running.remove(op.process());
      if (invoke == null || !invoke.f().equals(op.f())) {
        throw HistoryFormatException.atIndex(op.index(), "process " + op.process() + " completes " + op.f()
            + " it did not invoke");
      }
      if (op.isTransactional()) {
        List<Mop> mops = op.type() == Op.Type.OK ? op.value() : invoke.value();
        txns.add(new Txn(txns.size(), op.process(), op.type(), op.f().equals("read"), invoke.index(), op.index(),
            invoke.time(), op.time(), mops, invoke.group()));
      }
    }
    for (Op invoke : running.values()) { // the history ended before they completed: as if info
      if (invoke.isTransactional()) {
        txns.add(new Txn(txns.size(), invoke.process(), Op.Type.INFO, invoke.f().equals("read"), invoke.index(), -1,
            invoke.time(), -1, invoke.value(), invoke.group()));
      }
    }
    return txns;
  }
}
