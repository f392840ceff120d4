package org.gstore.recovery;

import java.io.IOException;
import java.util.Map;
import java.util.Set;

/**
 * Where the thresholds of recovery are published and read: HBase's ZooKeeper in production
 * ({@code RecoveryZnodes}), memory in tests and the recovery simulation. Servers are named as HBase names them
 * ({@code host,port,startcode}); logs as {@link LogId} names them (a server and one G-Store instance on it).
 */
public interface ClaimStore {
  /** T_F of one leader log: its last shipment HBase acknowledged. */
  record Flushed(String log, long shippedThrough) {}

  /** The region servers HBase counts as alive. */
  Set<String> liveServers() throws IOException;

  /** Registers {@code server} as one whose claim counts, claiming nothing yet; replaces an earlier claim. */
  void register(String server) throws IOException;

  /**
   * Withdraws a server that stopped G-Store cleanly: every region it held closed with its memstore flushed, so it
   * holds no shipped write that is not persisted, and its claims no longer hold any leader back.
   */
  void unregister(String server) throws IOException;

  void publishFlushed(String server, Flushed flushed) throws IOException;

  /** T_F of every server's current log, by server. */
  Map<String, Flushed> flushed() throws IOException;

  /** What {@code server} claims persisted: log → shipment. */
  void publishClaim(String server, Map<String, Long> claim) throws IOException;

  /** The claim of every registered server, live or dead, by server. */
  Map<String, Map<String, Long>> claims() throws IOException;
}
