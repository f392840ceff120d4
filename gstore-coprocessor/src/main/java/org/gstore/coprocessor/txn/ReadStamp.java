package org.gstore.coprocessor.txn;

import org.gstore.common.protocol.Key;

/** A row a transaction read, and the version it read (see {@link RowState#version()}). */
public record ReadStamp(Key key, long version) {}
