package org.gstore.recovery;

import java.util.List;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;

/**
 * One committed transaction on its way from the WAL into HBase: its group, its commit timestamp (every cell's
 * timestamp, so writing it twice changes nothing), its transaction id (its outcome is recorded under it) and its
 * writes. {@code position} is where it is in its leader's WAL; a replay's shipments have none (null).
 */
public record Shipment(GroupRef group, long commitTs, String txnId, List<RowWriteProto> writes,
    WalPosition position) {}
