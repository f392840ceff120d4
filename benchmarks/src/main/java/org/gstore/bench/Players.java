package org.gstore.bench;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;

/** The benchmark's Players table: rows {@code player0000000..}, spread over its regions by their first digit. */
final class Players {
  static final TableName TABLE = TableName.valueOf("bench_players");
  /** The same players for Omid, in a table of the same shape that keeps every version (Omid's multi-versioning). */
  static final TableName OMID_TABLE = TableName.valueOf("bench_players_omid");
  static final byte[] CF = Bytes.toBytes("p");
  static final byte[] SCORE = Bytes.toBytes("score");
  static final int REGIONS = 12;

  private Players() {}

  static byte[] row(int i, int rows) {
    // the row number scaled to a 7-digit prefix keeps contiguous players contiguous and spreads them evenly
    long scaled = (long) i * 10_000_000L / rows;
    return Bytes.toBytes(String.format("player%07d", scaled));
  }

  /** The table {@code system} plays on. */
  static TableName table(BenchSystem system) {
    return system == BenchSystem.OMID ? OMID_TABLE : TABLE;
  }

  static byte[][] splits() {
    byte[][] splits = new byte[REGIONS - 1][];
    for (int i = 1; i < REGIONS; i++) {
      splits[i - 1] = Bytes.toBytes(String.format("player%07d", i * 10_000_000L / REGIONS));
    }
    return splits;
  }

  /** {@code k} distinct players: random ones, or a contiguous range at a random place. */
  static List<byte[]> pick(Random random, int k, int rows, boolean contiguous) {
    Set<Integer> chosen = new LinkedHashSet<>();
    if (contiguous) {
      int start = random.nextInt(Math.max(1, rows - k));
      for (int i = 0; i < k; i++) {
        chosen.add(start + i);
      }
    } else {
      while (chosen.size() < k) {
        chosen.add(random.nextInt(rows));
      }
    }
    List<byte[]> result = new ArrayList<>();
    chosen.forEach(i -> result.add(row(i, rows)));
    return result;
  }
}
