package org.gstore.client;

import java.io.IOException;

/** The work of a transaction, run by {@link KeyGroup#transact}, possibly several times (on conflicts). */
@FunctionalInterface
public interface TransactionBody<T> {
  T run(Transaction txn) throws IOException;
}
