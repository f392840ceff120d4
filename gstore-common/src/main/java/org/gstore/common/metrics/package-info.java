/**
 * Reading G-Store's region-server metrics from outside the server: the names and parsing of what HBase's info
 * server publishes at {@code /prometheus}, shared by {@code gstore top} and {@code gstore bench}.
 */
package org.gstore.common.metrics;
