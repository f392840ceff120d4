package org.gstore.coprocessor.txn;

import java.util.List;

/**
 * The outcome of a read: the snapshot it read at, the cache incarnation that served it and the rows' states, in the
 * order asked; or, unless {@link TxnOutcome#OK}, why not ({@code message}).
 */
public record ReadResult(TxnOutcome outcome, long snapshot, long incarnation, List<RowState> rows, String message) {
  static ReadResult failed(TxnOutcome outcome, String message) {
    return new ReadResult(outcome, 0, 0, List.of(), message);
  }
}
