/**
 * Transactions at a group's leader: the caches of the groups it leads (loading, incarnations, closing on region
 * moves), commit validation and OCC. Makes commits durable through {@code wal} and hands them to its shipper;
 * reads HBase only to load caches. Also the canonical form of a request's keys ({@link org.gstore.coprocessor.txn.Requests}). Called by
 * {@code endpoint} and wired by {@code server}; calls only {@code wal} and the leaves.
 */
package org.gstore.coprocessor.txn;
