/**
 * A leaf: G-Store's region-server metrics ({@link org.gstore.coprocessor.metrics.GStoreMetrics}), exported through
 * the registry HBase gives coprocessors, held for the process's life, and the gauges' sources
 * ({@link org.gstore.coprocessor.metrics.GaugeSources}): each server's parts, which the gauges read through the
 * recovery layer's types and suppliers the server sets; nothing here calls the server's own layers.
 */
package org.gstore.coprocessor.metrics;
