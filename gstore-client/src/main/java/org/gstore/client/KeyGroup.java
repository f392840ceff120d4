package org.gstore.client;

import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.MemberState;

/**
 * A formed group: the rows that joined are owned by the leader's region server until {@link #delete()}.
 * Obtained from {@link GStoreClient#createGroup} or {@link GStoreClient#getGroup}.
 */
public final class KeyGroup {
  private final GStoreClient client;
  private final GroupId id;
  private final Set<RowKey> members;
  private final Set<RowKey> refused;
  private final Duration lease;
  /** The newest answer about the group seen through this object: which leader cache, and its commit timestamp. */
  private final AtomicReference<Seen> seen = new AtomicReference<>(Seen.NOTHING);

  /** An answer from the group's leader: its cache's incarnation and a commit timestamp (or snapshot) it gave. */
  record Seen(long incarnation, long ts) {
    static final Seen NOTHING = new Seen(0, 0);
  }

  KeyGroup(GStoreClient client, GroupId id, Set<RowKey> members, Set<RowKey> refused, Duration lease) {
    this.client = client;
    this.id = id;
    this.members = Collections.unmodifiableSet(members);
    this.refused = Collections.unmodifiableSet(refused);
    this.lease = lease;
  }

  static KeyGroup from(GStoreClient client, GroupRecord record) {
    GroupId id = new GroupId(record.id().name(), RowKey.of(record.id().leader()));
    return new KeyGroup(client, id, rows(record, MemberState.Status.JOINED), rows(record, MemberState.Status.REFUSED),
        Duration.ofMillis(record.leaseMillis()));
  }

  private static Set<RowKey> rows(GroupRecord record, MemberState.Status status) {
    Set<RowKey> rows = new LinkedHashSet<>();
    record.members(status).forEach(k -> rows.add(RowKey.of(k)));
    return rows;
  }

  static Map<RowKey, String> refusals(GroupRecord record) {
    Map<RowKey, String> refused = new java.util.LinkedHashMap<>();
    record.members().forEach((k, m) -> {
      if (m.is(MemberState.Status.REFUSED)) {
        refused.put(RowKey.of(k), m.refusal());
      }
    });
    return refused;
  }

  public GroupId id() {
    return id;
  }

  public RowKey leader() {
    return id.leader();
  }

  /** The rows that joined, the leader included. */
  public Set<RowKey> members() {
    return members;
  }

  /**
   * How long the group lives without a renewal ({@link Duration#ZERO}: until deleted). The {@link GStoreClient}
   * that created or looked up this group renews it until the client is closed or the group deleted; once no
   * client renews it, its leader deletes it within the lease (see {@link GroupSpec.Builder#lease}).
   */
  public Duration lease() {
    return lease;
  }

  /** The rows that did not join (best-effort groups; always empty for atomic ones). */
  public Set<RowKey> refused() {
    return refused;
  }

  /** What this object saw last of the group: a commit sent after it is stamped above {@code ts}. */
  Seen seen() {
    return seen.get();
  }

  /** Records an answer from the leader, unless a newer one was seen. */
  void saw(long incarnation, long ts) {
    if (incarnation != 0) {
      seen.accumulateAndGet(new Seen(incarnation, ts), (old, now) -> now.ts() >= old.ts() ? now : old);
    }
  }

  /** Starts a transaction on the group's rows. Close it (try-with-resources); without commit it aborts. */
  public Transaction begin() {
    return new Transaction(client, this);
  }

  /**
   * Runs {@code body} in a transaction and commits it, running it again (after a short random backoff) when the
   * commit meets a conflict, up to {@code gstore.client.txn.attempts} times; then the last
   * {@link TransactionConflictException} is thrown. Other exceptions abort and propagate at once; after a
   * {@link CommitOutcomeUnknownException} the body never runs again, so a transaction applies at most once. The
   * body may run several times (each time its commit was refused), so it should have no effects outside the
   * transaction.
   */
  public <T> T transact(TransactionBody<T> body) throws IOException {
    TransactionConflictException last = null;
    for (long attempt = 1; attempt <= client.transactionAttempts(); attempt++) {
      try (Transaction txn = begin()) {
        T result = body.run(txn);
        if (txn.isOpen()) {
          txn.commit();
        }
        return result;
      } catch (TransactionConflictException e) {
        last = e;
        backoff(attempt);
      }
    }
    throw last;
  }

  private static void backoff(long attempt) throws java.io.InterruptedIOException {
    long cap = Math.min(100, 1L << Math.min(attempt, 7));
    try {
      Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextLong(cap + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted between transaction attempts");
    }
  }

  /** Dissolves the group; returns once every member has been given back. */
  public void delete() throws IOException {
    client.deleteGroup(id);
  }

  @Override
  public String toString() {
    return "KeyGroup[" + id + ", " + members.size() + " members" + (refused.isEmpty() ? "" : ", "
        + refused.size() + " refused") + "]";
  }
}
