package org.gstore.coprocessor.txn;

import java.io.IOException;
import org.gstore.common.protocol.GroupRecord;

/** Reads a group's members into a new cache: from HBase in production ({@link CacheLoader}), memory in tests. */
public interface GroupLoader {
  GroupCache load(GroupRecord record, long incarnation) throws IOException;

  /** Releases what loading holds (threads); loads after it fail. */
  default void close() {}
}
