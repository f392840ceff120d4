package org.gstore.chaos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;

/**
 * The bank's transfer workers: which groups each transfers in, and where their rows are. Each group has workers of
 * its own (two or more share one when there are more workers than groups, so their transfers conflict), so that a
 * group stalled by a fault holds only its own workers, and a run can tell whether groups with no row on the faulted
 * server stalled ({@link Stalls}).
 */
record TransferWorkers(Bank bank, int count) {
  /** The thread name of worker {@code worker}: the client its successes are counted under. */
  static String name(int worker) {
    return "chaos-transfers-" + worker;
  }

  /** The groups worker {@code worker} transfers in. */
  List<Integer> groupsOf(int worker) {
    int span = Math.min(count, bank.groups());
    List<Integer> mine = new ArrayList<>();
    for (int g = worker % span; g < bank.groups(); g += span) {
      mine.add(g);
    }
    return mine;
  }

  /**
   * Where each worker's rows are now: its thread's name to the rpc ports of the region servers hosting its groups'
   * accounts, from one read of {@code hbase:meta} (the client's cache of locations may be stale: its transactions
   * reach only the leaders' regions); empty when it cannot be read. A worker with a row in no region listed (one in
   * transition) is left out, so it is never counted unrelated. Asked as a fault begins, when the cluster serves.
   */
  Map<String, Set<Integer>> placement(Connection connection) {
    Map<String, Set<Integer>> placed = new HashMap<>();
    try (RegionLocator locator = connection.getRegionLocator(bank.table())) {
      List<HRegionLocation> regions = locator.getAllRegionLocations();
      for (int w = 0; w < count; w++) {
        Set<Integer> ports = new HashSet<>();
        boolean located = true;
        for (int g : groupsOf(w)) {
          for (byte[] row : bank.rows(g)) {
            Optional<HRegionLocation> region = regions.stream()
                .filter(l -> l.getRegion().containsRow(row) && l.getServerName() != null).findFirst();
            region.ifPresent(l -> ports.add(l.getServerName().getPort()));
            located &= region.isPresent();
          }
        }
        if (located) {
          placed.put(name(w), ports);
        }
      }
      return placed;
    } catch (IOException | RuntimeException e) {
      return Map.of();
    }
  }
}
