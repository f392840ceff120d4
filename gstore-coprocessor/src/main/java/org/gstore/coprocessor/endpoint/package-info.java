/**
 * The client-facing coprocessor services: group create, delete and lookup, and transaction reads and commits.
 * Each call is checked (region, canonical keys, limits, the caller's HBase permissions) and then handed to
 * {@code server} or {@code txn}.
 */
package org.gstore.coprocessor.endpoint;
