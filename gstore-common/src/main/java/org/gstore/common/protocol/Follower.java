package org.gstore.common.protocol;

import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The follower's half of the Key Grouping protocol for every key this node hosts (G-Store paper, section 4.2):
 * yields a free key to the first group that asks (logging it {@code JOINING}), refuses keys already in a group
 * without blocking, retries {@code JA} until the {@code JAA} with the matching yield id (then notes it
 * {@code YIELDED}, in memory only), and answers every {@code D} with {@code DA} (logging the key free).
 *
 * <p>The two freshness checks are separate methods so the simulator's tests can plant the bugs they guard
 * against and show that the simulator notices.
 */
class Follower {
  private final ProtocolConfig config;
  private final UidSource uids;
  private final ProtocolStats stats;
  private final RetryTimeout timeout;
  private final Map<Key, Entry> owners = new LinkedHashMap<>();
  /** Keys retrying their JA: ticks look at these only, not at every key in a group. */
  private final Set<Entry> joining = new LinkedHashSet<>();

  /**
   * A key that is not free, and the timer of its {@code JA} retries while it is joining. {@code logged} is the
   * record as last made durable ({@code JOINING}), {@code record} the live one ({@code YIELDED} once the JAA came).
   */
  private static final class Entry {
    final OwnerRecord logged;
    OwnerRecord record;
    Retry retry;

    Entry(OwnerRecord record, Retry retry) {
      this.logged = record;
      this.record = record;
      this.retry = retry;
    }
  }

  Follower(ProtocolConfig config, RetryTimeout timeout, UidSource uids, ProtocolStats stats) {
    this.timeout = timeout;
    this.config = config;
    this.uids = uids;
    this.stats = stats;
  }

  void onJoin(Join j, long now, Effects fx) {
    Entry e = owners.get(j.member());
    if (e == null) {
      OwnerRecord r = new OwnerRecord(j.member(), j.group(), uids.next(fx), OwnerRecord.State.JOINING);
      Entry joined = new Entry(r, new Retry(timeout, now));
      owners.put(j.member(), joined);
      joining.add(joined);
      fx.persist(new StateChange.PutOwner(r));
      fx.send(JoinAck.joined(j.group(), j.member(), r.yieldId()));
    } else if (isSameGroup(e.record, j)) {
      // A duplicate J: the same answer, nothing new logged.
      fx.send(JoinAck.joined(j.group(), j.member(), e.record.yieldId()));
    } else {
      fx.send(JoinAck.refused(j.group(), j.member(), e.record.group(),
          "row " + j.member() + " is in group " + e.record.group().id()));
    }
  }

  void onJoinAckAck(JoinAckAck jaa, long now, Effects fx) {
    Entry e = owners.get(jaa.member());
    if (e == null || e.record.state() != OwnerRecord.State.JOINING || !isFresh(e.record, jaa)) {
      return; // spurious or stale: ignoring it is what prevents ghost groups (paper, Figure 5)
    }
    e.retry.answered(now);
    // Noted in memory only: the durable JOINING record already fences the key to the group. A node that reloads
    // it (restart, region move) retries JA and the leader answers JAA again, or D if the group is gone.
    e.record = new OwnerRecord(jaa.member(), jaa.group(), jaa.yieldId(), OwnerRecord.State.YIELDED);
    e.retry = null;
    joining.remove(e);
  }

  void onDelete(Delete d, Effects fx) {
    Entry e = owners.get(d.member());
    if (e != null && e.record.group().equals(d.group())) {
      owners.remove(d.member());
      joining.remove(e);
      fx.persist(new StateChange.RemoveOwner(d.member()));
    }
    // Answered whatever it was: duplicate, stale, for an unknown group or valid. The DA is not retried.
    fx.send(new DeleteAck(d.group(), d.member()));
  }

  /**
   * Whether a {@code J} asks for the group the key already belongs to (so it is a duplicate). Only then may the
   * key be yielded again; any other group is refused.
   */
  protected boolean isSameGroup(OwnerRecord current, Join j) {
    return current.group().equals(j.group());
  }

  /** Whether a {@code JAA} answers the {@code JA} the key is waiting on: same group incarnation and yield id. */
  protected boolean isFresh(OwnerRecord current, JoinAckAck jaa) {
    return current.group().equals(jaa.group()) && current.yieldId().equals(jaa.yieldId());
  }

  void tick(long now, Effects fx) {
    for (Entry e : joining) {
      if (e.retry.fire(now)) {
        fx.send(JoinAck.joined(e.record.group(), e.record.key(), e.record.yieldId()));
        stats.messagesRetried++;
      }
    }
  }

  long nextWakeup() {
    long next = Long.MAX_VALUE;
    for (Entry e : joining) {
      next = Math.min(next, e.retry.dueAt());
    }
    return next;
  }

  /** Takes over a key this node now hosts; a joining key resumes its JA retries at once. */
  void load(OwnerRecord record, long now) {
    Retry retry = record.state() == OwnerRecord.State.JOINING ? Retry.immediately(timeout, now) : null;
    Entry e = new Entry(record, retry);
    owners.put(record.key(), e);
    if (retry != null) {
      joining.add(e);
    }
  }

  void unload(Predicate<Key> gone) {
    Iterator<Map.Entry<Key, Entry>> it = owners.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Key, Entry> e = it.next();
      if (gone.test(e.getKey())) {
        joining.remove(e.getValue());
        it.remove();
      }
    }
  }

  /** The key's live owner record ({@code YIELDED} once its JAA came), if it is not free. */
  Optional<OwnerRecord> owner(Key key) {
    return Optional.ofNullable(owners.get(key)).map(e -> e.record);
  }

  /**
   * Every owner record as last logged: what this node would reload after a crash. A {@code YIELDED} key is in it
   * as {@code JOINING} ({@link #owner} has the live state).
   */
  Collection<OwnerRecord> owners() {
    return owners.values().stream().map(e -> e.logged).toList();
  }
}
