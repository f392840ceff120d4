package org.gstore.recovery.hbase;

import java.io.IOException;
import java.util.List;
import org.gstore.common.protocol.log.LoggedChange;

/** Writes versioned protocol state changes to the state tables, each row only if newer (a region server's writer). */
@FunctionalInterface
public interface ProtocolStateSink {
  void write(List<LoggedChange> changes) throws IOException;
}
