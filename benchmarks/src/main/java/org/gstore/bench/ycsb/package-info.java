/**
 * YCSB bindings for G-Store (groups of YCSB keys, operations as transactions in them), plain HBase and Apache Omid,
 * so the three run the same YCSB workloads side by side.
 */
package org.gstore.bench.ycsb;
