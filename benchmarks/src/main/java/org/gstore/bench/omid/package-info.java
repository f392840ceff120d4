/**
 * Apache Omid as a third system in {@code gstore bench}: its timestamp oracle run as a process of its own against
 * the benchmark's cluster ({@link org.gstore.bench.omid.OmidTso}), its client ({@link
 * org.gstore.bench.omid.OmidClient}) and how both are configured ({@link org.gstore.bench.omid.OmidSettings}).
 * Only the benchmarks module depends on Omid.
 */
package org.gstore.bench.omid;
