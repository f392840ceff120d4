package org.gstore.recovery.hbase;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.ServerName;

/**
 * The region servers HBase counts as alive, read from their znodes under {@code /rs}. A znode lives as long as its
 * server's ZooKeeper session, which outlives a server killed and started again at once on the same address: the
 * master expires the earlier instance as soon as the new one reports (two processes cannot serve one address), and
 * reassigns its regions, while its znode lingers until the session times out. Counting that instance alive would
 * let its regions open elsewhere and serve before its G-Store WAL is replayed. So an instance is alive only if no
 * newer one (a higher start code) runs on its host and port. This is the master's own rule
 * ({@code ServerManager.checkAndRecordNewServer} orders instances of one address by start code, and rejects an
 * instance whose start code is lower than the registered one's, which then never creates its znode), so G-Store
 * reads the cluster as HBase does, a clock stepped back included.
 */
public final class LiveServers {
  private LiveServers() {}

  /** @param registered names of the znodes under {@code /rs} ({@code host,port,startcode}) */
  public static Set<String> of(Collection<String> registered) {
    Map<String, ServerName> newestPerAddress = new HashMap<>();
    Set<String> live = new HashSet<>();
    for (String name : registered) {
      if (!ServerName.isFullServerName(name)) {
        live.add(name); // not ours to judge
        continue;
      }
      ServerName server = ServerName.valueOf(name);
      newestPerAddress.merge(server.getAddress().toString(), server,
          (a, b) -> a.getStartcode() >= b.getStartcode() ? a : b);
    }
    newestPerAddress.values().forEach(s -> live.add(s.getServerName()));
    return live;
  }
}
