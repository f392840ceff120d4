package org.gstore.recovery.hbase;

import java.io.IOException;
import java.util.Set;
import org.gstore.recovery.ClaimStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fences the G-Store WAL of a region server as soon as it leaves ZooKeeper's live set ({@link
 * WalRecovery#fenceDeadLogs}), rather than when its regions open elsewhere and wait for the replay. Run often: each
 * run reads the live set, and looks at the logs only when a server left since the last one, while a dead log is
 * still unfenced (or the last look failed), and on the first run, for servers that left before this one started.
 */
public final class DepartureFencing implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(DepartureFencing.class);

  private final ClaimStore znodes;
  private final WalRecovery recovery;
  private Set<String> lastLive;

  public DepartureFencing(ClaimStore znodes, WalRecovery recovery) {
    this.znodes = znodes;
    this.recovery = recovery;
  }

  @Override
  public void run() {
    try {
      Set<String> live = znodes.liveServers();
      if (lastLive == null || !live.containsAll(lastLive)) {
        // looked at again next run until every dead log is fenced: a fence that failed, or whose lock another
        // server held without fencing, is started again (at most once per attempt time: WalRecovery's attempts)
        lastLive = recovery.fenceDeadLogs() == 0 ? live : null;
      } else {
        lastLive = live;
      }
    } catch (IOException e) { // looked at again next run: the last live set is kept
      LOG.debug("G-Store could not look for logs of departed servers to fence ({}); trying again", e.toString());
    }
  }
}
