package org.gstore.bench;

import java.io.IOException;
import java.util.Random;
import org.gstore.client.KeyGroup;

/**
 * Group formation alone (the gaming benchmark with N = 0): clients create groups of K random players and delete
 * them, as fast as they can. Records the create latency (and the delete's, as the phase {@code delete});
 * throughput is creates per second, and the CPU per operation is that of a create and a delete.
 */
final class GroupCreateWorkload implements Workload {
  private final int k;
  private final int rows;
  private final BenchSystem.Clients clients;

  GroupCreateWorkload(int k, int rows, BenchSystem.Clients clients) {
    this.k = k;
    this.rows = rows;
    this.clients = clients;
  }

  @Override
  public String name() {
    return "group-create";
  }

  @Override
  public boolean supports(BenchSystem system) {
    return system == BenchSystem.GSTORE;
  }

  @Override
  public void runClient(BenchSystem system, int client, Recorder recorder) throws IOException {
    Random random = new Random(2_000L + client);
    while (!recorder.done()) {
      long start = System.nanoTime();
      KeyGroup g = Groups.form(clients.gstore(), Players.pick(random, k, rows, false), random, rows, false);
      long created = System.nanoTime();
      g.delete();
      recorder.phase("delete", System.nanoTime() - created);
      recorder.op(created - start); // the create; its CPU per operation is a create's and a delete's
    }
  }
}
