package org.gstore.recovery;

import java.io.IOException;
import java.util.OptionalLong;
import org.gstore.common.protocol.GroupId;

/**
 * The durable record of which transactions committed, beyond any leader's memory: {@code OutcomeTable} in
 * production, a map in tests.
 */
@FunctionalInterface
public interface CommittedTxns {
  /** The commit timestamp of {@code txnId} in {@code group}, or empty if it did not commit (within the retention). */
  OptionalLong commitTs(GroupId group, String txnId) throws IOException;
}
