/**
 * A leaf: G-Store's region-server metrics ({@link org.gstore.coprocessor.metrics.GStoreMetrics}), exported through
 * the registry HBase gives coprocessors. Gauges read their sources through suppliers the server sets, so this
 * package calls no other layer.
 */
package org.gstore.coprocessor.metrics;
