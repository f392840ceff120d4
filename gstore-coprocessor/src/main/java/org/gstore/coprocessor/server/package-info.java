/**
 * The per-region-server runtime: {@link org.gstore.coprocessor.server.GStoreServer} wires the protocol engine to
 * UDP ({@code transport}), durable state ({@link org.gstore.coprocessor.server.StateTables}, written by the
 * {@link org.gstore.coprocessor.server.StepWriter}), the fence ({@link org.gstore.coprocessor.server.HostedRegions})
 * and the transaction side ({@code txn}, {@code wal}). Also the shared building blocks: the batching worker
 * thread, metrics, the table guard. May call every other subpackage; only the root package and {@code endpoint}
 * call it.
 */
package org.gstore.coprocessor.server;
