package org.gstore.coprocessor.txn;

/** How a transaction call ended. The endpoint sends it as {@code TxnOutcomeProto} of the same name. */
public enum TxnOutcome {
  /** The commit is durable in the WAL, applied to the cache and handed to the shipper. */
  COMMITTED,
  /** Validation failed, the group was reloaded since the transaction read, or its snapshot is too old: retry. */
  CONFLICT,
  /** The group does not exist here (never created, deleted, or being deleted). */
  NO_GROUP,
  /** A row the transaction named is not a member of the group. */
  NOT_MEMBER,
  /** A read was served. */
  OK
}
