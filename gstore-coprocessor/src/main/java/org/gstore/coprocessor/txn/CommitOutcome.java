package org.gstore.coprocessor.txn;

/**
 * The outcome of a commit: {@code commitTs} is the timestamp of every cell it wrote (for a commit without writes,
 * the group's last commit; 0 unless committed), {@code incarnation} the leader cache that committed it (0 if not
 * known: the outcome was looked up), {@code message} says why it did not commit (null if it did). Remembered per
 * transaction id, so that a retried commit gets the first outcome.
 */
public record CommitOutcome(TxnOutcome outcome, long commitTs, long incarnation, String message) {
  static CommitOutcome committed(long commitTs, long incarnation) {
    return new CommitOutcome(TxnOutcome.COMMITTED, commitTs, incarnation, null);
  }

  static CommitOutcome failed(TxnOutcome outcome, String message) {
    return new CommitOutcome(outcome, 0, 0, message);
  }
}
