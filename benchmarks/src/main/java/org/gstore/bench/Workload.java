package org.gstore.bench;

import java.io.IOException;

/**
 * One benchmark workload, run by several clients at once against one system. Each client thread calls
 * {@link #runClient} once; it works until {@link Recorder#done()} and records what it did.
 */
interface Workload {
  /** The name in reports ({@code gaming}, {@code group-create}). */
  String name();

  /** Whether this workload can run against {@code system}. */
  boolean supports(BenchSystem system);

  void runClient(BenchSystem system, int client, Recorder recorder) throws IOException;

  /** Before the clients of one run point start (for example, forming groups they share). */
  default void setUp(BenchSystem system) throws IOException {}

  /** After they stopped. */
  default void tearDown(BenchSystem system) throws IOException {}
}
