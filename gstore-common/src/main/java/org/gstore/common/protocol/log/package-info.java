/**
 * The protocol log: how a node's protocol state changes become durable as versioned records of its log and reach
 * the shared state tables later, collapsed per row ({@link org.gstore.common.protocol.log.CheckpointQueue}), and
 * how a dead node's records are replayed ({@link org.gstore.common.protocol.log.Checkpoint#replay}). Pure: the
 * coprocessor adapts it to the shared WAL and HBase, the simulator to in-memory logs and tables. Depends only on
 * {@code org.gstore.common.protocol}.
 */
package org.gstore.common.protocol.log;
