package org.gstore.recovery;

/** Where a record is in a leader's shared WAL: its stream and its sequence number there. */
public record WalPosition(int stream, long seq) {}
