package org.gstore.client;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * What an operator sees of one group ({@link GStoreAdmin}): its durable record in {@code gstore:groups}, and what
 * its leader knows (unknown when the leader could not be asked).
 *
 * @param state {@code CREATING}, {@code ACTIVE} or {@code DELETING}
 * @param leaderServer the region server hosting the leader row, or null if it could not be located
 * @param since when the group's record last changed (for an active group: when it was formed)
 * @param lease how long it lives without a renewal ({@link Duration#ZERO}: until deleted)
 * @param leaseExpiresAt when its lease lapses unless renewed (the leader's clock), or null if none is known
 * @param holder the client that renewed its lease last ({@code pid@host#n}), or null
 * @param unshippedCommits its commits the leader has not shipped to HBase yet, or -1 if unknown
 * @param unpersistedCommits its commits not yet known persisted in HBase (unshipped ones included), or -1
 * @param commits its commits at its current leader since that server loaded it (a move or restart starts it
 *     over), or -1 if unknown
 * @param aborts its transactions the current leader aborted by validation (conflicts) since then, or -1
 */
public record GroupInfo(GroupId id, String state, Set<RowKey> members, Set<RowKey> refused, String leaderServer,
    Instant since, Duration lease, Instant leaseExpiresAt, String holder, long unshippedCommits,
    long unpersistedCommits, long commits, long aborts) {}
