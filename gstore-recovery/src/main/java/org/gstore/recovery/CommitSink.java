package org.gstore.recovery;

import java.io.IOException;
import java.util.List;

/**
 * Where committed transactions are written once they leave the WAL: HBase in production ({@code CommitApplier}),
 * memory in tests and simulations. Writing a commit twice, or commits out of order, must leave the same state as
 * writing each once in order (cells carry their commit's timestamp).
 */
@FunctionalInterface
public interface CommitSink {
  /** Writes the batch; an exception leaves any part of it written or not, and the caller writes it again. */
  void apply(List<Shipment> batch) throws IOException;
}
