package org.gstore.recovery.hbase;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.common.protocol.log.Checkpoint;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.common.protocol.log.ProtocolRecord;
import org.gstore.common.wire.ProtocolRecordCodec;
import org.gstore.common.wire.generated.GStoreProtos.WalRecordProto;

/**
 * The first step of replaying a fenced log: the protocol state its server logged there before the state tables
 * ({@code gstore.protocol.log=wal}) is written to the tables, collapsed to the newest version per row, and the log
 * is marked {@link #REPLAYED}. Regions load protocol state only once every log that may hold some is so marked
 * ({@link WalRecovery#replayProtocolState}), and this step runs before the commits' replay, so a commit's rows are
 * fenced by the time it is written. Versions make it idempotent: a record written before, by the dead server's
 * checkpointer or by an earlier replay, changes nothing.
 */
final class ProtocolReplay {
  /** A file in a fenced log's directory: its protocol records are in the state tables. */
  static final String REPLAYED = "protocol-replayed";

  private final FileSystem fs;
  private final ProtocolStateSink sink;

  ProtocolReplay(FileSystem fs, ProtocolStateSink sink) {
    this.fs = fs;
    this.sink = sink;
  }

  /** Whether the fenced log {@code fenced} is marked replayed. */
  boolean replayed(Path fenced) throws IOException {
    return fs.exists(new Path(fenced, REPLAYED));
  }

  /**
   * Writes the protocol records of the fenced log {@code fenced} (whose {@code files} no writer can add to any
   * more) to the state tables and marks it, unless it is marked already. Returns the rows written.
   */
  int replay(Path fenced, List<Path> files) throws IOException {
    if (replayed(fenced)) {
      return 0;
    }
    List<ProtocolRecord> records = new ArrayList<>();
    for (Path f : files) {
      for (WalRecordProto r : WalFiles.readForReplay(fs, f)) {
        if (r.hasProtocol()) {
          records.add(ProtocolRecordCodec.decode(r));
        }
      }
    }
    List<LoggedChange> changes = Checkpoint.of(records).changes();
    if (!changes.isEmpty()) {
      sink.write(changes);
    }
    fs.create(new Path(fenced, REPLAYED), true).close();
    return changes.size();
  }
}
