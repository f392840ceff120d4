package org.gstore.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.testing.GStoreMiniCluster;

/**
 * Measures group create and delete latency on an embedded 3-region-server cluster: one client, groups of K random
 * rows out of a large key space spread over every server, created and deleted one after another.
 *
 * <p>Usage: {@code mvn -q -pl benchmarks exec:exec@group-create-latency [-Dbench.groups=N] [-Dbench.sizes=10,50]}
 */
public final class GroupCreateLatency {
  private GroupCreateLatency() {}

  public static void main(String[] args) throws Exception {
    int groups = Integer.getInteger("groups", 200);
    int[] sizes = Arrays.stream(System.getProperty("sizes", "10,50").split(",")).mapToInt(Integer::parseInt)
        .toArray();
    TableName players = TableName.valueOf("players");
    byte[][] splits = new byte[11][];
    for (int i = 1; i <= 11; i++) {
      splits[i - 1] = Bytes.toBytes(String.format("%02d", i * 100 / 12));
    }
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(3)) {
      cluster.createTable(players, new byte[][] {Bytes.toBytes("p")}, splits).close();
      try (GStoreClient client = GStoreClient.create(cluster.getConnection())) {
        Random random = new Random(42);
        run(client, players, 10, 20, random); // warm up connections, locations and JIT
        System.out.printf("%-6s %7s %9s %9s %9s %9s %9s%n", "K", "groups", "create50", "create99", "createAvg",
            "delete50", "delete99");
        for (int k : sizes) {
          long[][] latencies = run(client, players, k, groups, random);
          System.out.printf("%-6d %7d %7.2fms %7.2fms %7.2fms %7.2fms %7.2fms%n", k, groups,
              ms(percentile(latencies[0], 50)), ms(percentile(latencies[0], 99)), ms(mean(latencies[0])),
              ms(percentile(latencies[1], 50)), ms(percentile(latencies[1], 99)));
        }
      }
    }
    System.exit(0);
  }

  /** Creates and deletes {@code groups} groups of {@code k} random rows; returns create and delete latencies (ns). */
  private static long[][] run(GStoreClient client, TableName table, int k, int groups, Random random)
      throws Exception {
    long[] create = new long[groups];
    long[] delete = new long[groups];
    for (int g = 0; g < groups; g++) {
      Set<String> rows = new HashSet<>();
      while (rows.size() < k) {
        rows.add(String.format("%02d-%06d", random.nextInt(100), random.nextInt(1_000_000)));
      }
      List<byte[]> members = new ArrayList<>();
      rows.forEach(r -> members.add(Bytes.toBytes(r)));
      long t0 = System.nanoTime();
      KeyGroup group = client.createGroup(GroupSpec.builder().members(table, members).build());
      long t1 = System.nanoTime();
      group.delete();
      long t2 = System.nanoTime();
      if (group.members().size() != k) {
        throw new IllegalStateException("group formed with " + group.members().size() + " of " + k + " rows");
      }
      create[g] = t1 - t0;
      delete[g] = t2 - t1;
    }
    return new long[][] {create, delete};
  }

  private static long percentile(long[] values, double p) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[(int) Math.min(sorted.length - 1, Math.ceil(p / 100.0 * sorted.length) - 1)];
  }

  private static double mean(long[] values) {
    return Arrays.stream(values).average().orElse(0);
  }

  private static double ms(double nanos) {
    return nanos / 1e6;
  }
}
