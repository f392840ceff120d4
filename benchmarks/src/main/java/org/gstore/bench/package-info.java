/**
 * What {@code gstore bench} and {@code gstore scale} measure: the paper's gaming workload and group formation
 * ({@link org.gstore.bench.Benchmark}, with plain HBase and Apache Omid side by side as baselines), YCSB workloads,
 * and many groups at once ({@link org.gstore.bench.ScaleRun}); latency histograms and the report with its charts.
 */
package org.gstore.bench;
