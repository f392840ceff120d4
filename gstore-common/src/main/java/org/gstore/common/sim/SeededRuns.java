package org.gstore.common.sim;

/**
 * How many seeded schedules a simulation test runs, from {@code <prefix>.runs} and {@code <prefix>.seed}: a seed
 * alone replays that one schedule; runs alone start at a fresh seed; both start the runs at the seed.
 */
public record SeededRuns(long firstSeed, int runs) {
  public static SeededRuns fromSystemProperties(String prefix, int defaultRuns) {
    String seed = System.getProperty(prefix + ".seed", "").trim();
    String runs = System.getProperty(prefix + ".runs", "").trim();
    long first = seed.isEmpty() ? System.nanoTime() : Long.parseLong(seed);
    int count = !seed.isEmpty() && runs.isEmpty() ? 1 : runs.isEmpty() ? defaultRuns : Integer.parseInt(runs);
    return new SeededRuns(first, count);
  }
}
