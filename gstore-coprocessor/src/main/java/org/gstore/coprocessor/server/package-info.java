/**
 * The per-region-server runtime: {@link org.gstore.coprocessor.server.GStoreServer} wires the protocol engine to
 * UDP ({@code transport}), durable state ({@link org.gstore.coprocessor.server.StateTables}, written by the
 * {@link org.gstore.coprocessor.server.StepWriter}), the fence ({@link org.gstore.coprocessor.server.HostedRegions})
 * and the transaction side ({@link org.gstore.coprocessor.server.ServerTransactions}: {@code txn} over {@code wal}),
 * and the table guard. May call every package below it
 * ({@code txn}, {@code transport}, {@code wal} and the leaves); only the root package and {@code endpoint} call it
 * ({@code LayeringTest} holds every package to its place).
 */
package org.gstore.coprocessor.server;
