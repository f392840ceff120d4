package org.gstore.coprocessor.txn;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import org.apache.hadoop.hbase.NotServingRegionException;
import org.apache.hadoop.hbase.RegionTooBusyException;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.MemberState;

/**
 * The caches of the groups this server leads: loaded on first use, one load per group at a time (a group whose
 * member region is unavailable delays only itself), and closed when the group is deleted or its leader region
 * closes.
 *
 * <p>A cache is installed only while its leader row is served here by a region that is not closing, checked under
 * the same lock {@link #closeRegion} holds: a load that races a region close is either closed by it or discarded.
 * A group being deleted is remembered by incarnation ({@link GroupRef}, with its epoch), so a load racing the
 * delete is discarded, and a new group created later under the same name loads normally.
 */
public final class GroupCaches {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(GroupCaches.class);
  private static final int RELEASED_REMEMBERED = 100_000;

  private final GroupLoader loader;
  /** Loads new groups' caches, several at once (a load waits mostly for HBase's answers). */
  private final ExecutorService preloader = Executors.newFixedThreadPool(4, r -> {
    Thread t = new Thread(r, "gstore-cache-preload");
    t.setDaemon(true);
    return t;
  });
  private final Lookup groups;
  private final Predicate<Key> leaderServedHere;
  private final Map<GroupId, GroupCache> caches = new ConcurrentHashMap<>();
  private final Map<GroupId, Object> loading = new ConcurrentHashMap<>();
  private final Set<GroupRef> released = Collections.newSetFromMap(new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<GroupRef, Boolean> eldest) {
      return size() > RELEASED_REMEMBERED;
    }
  });

  /**
   * Groups with a commit in this server's WAL after their last persisted mark ({@link GroupHandover}): only they
   * need one. A group that committed nothing here since its last mark (most games that end at once, every lifecycle
   * of the group-create benchmark) would pay a WAL append and sync for a mark that filters nothing.
   */
  private final Set<GroupRef> unmarked = ConcurrentHashMap.newKeySet();

  /** The engine's record of a group. */
  public interface Lookup {
    Optional<GroupRecord> find(GroupId id) throws IOException;
  }

  /**
   * @param groups the engine's record of a group
   * @param leaderServedHere whether a leader row is in a region this server serves and is not closing
   */
  public GroupCaches(GroupLoader loader, Lookup groups, Predicate<Key> leaderServedHere) {
    this.loader = loader;
    this.groups = groups;
    this.leaderServedHere = leaderServedHere;
  }

  /** A commit of {@code group} is about to be appended to this server's WAL. */
  void commitLogging(GroupRef group) {
    unmarked.add(group);
  }

  /**
   * Whether {@code group} has a commit in this server's WAL after its last persisted mark; if so, the caller logs
   * one now, and gives it back ({@link #commitLogging}) if that fails.
   */
  boolean takeUnmarked(GroupRef group) {
    return unmarked.remove(group);
  }

  /** The serving caches of groups with a commit in this server's WAL after their last persisted mark. */
  List<GroupCache> unmarkedServing() {
    List<GroupCache> serving = new ArrayList<>();
    for (GroupCache cache : caches.values()) {
      if (cache.closed() == null && unmarked.contains(cache.group)) {
        serving.add(cache);
      }
    }
    return serving;
  }

  /**
   * The group's serving cache, loaded if needed; null if the group is not active here (never created, being
   * deleted, ended), which is only said while its leader region is open here. {@link NotServingRegionException}
   * while its leader region closes: HBase's client then finds the region's next host and calls again.
   */
  GroupCache get(GroupId id) throws IOException {
    GroupCache cache = caches.get(id);
    if (cache != null && cache.closed() == null) {
      return cache;
    }
    if (cache != null && cache.closed() == GroupCache.Closed.REGION_CLOSING) {
      throw moving(id);
    }
    Optional<GroupRecord> record = groups.find(id);
    if (leaderServedHere.test(id.leader())) {
      requireFormed(id, record);
    }
    if (record.isEmpty() || record.get().phase() != GroupPhase.ACTIVE || isReleased(record.get().group())) {
      if (!leaderServedHere.test(id.leader())) {
        throw moving(id); // the region closed after the caller's check and took the group with it
      }
      return null;
    }
    Object lock = loading.computeIfAbsent(id, k -> new Object());
    try {
      synchronized (lock) {
        GroupCache current = caches.get(id);
        if (current != null && current.group.equals(record.get().group()) && current.closed() == null) {
          return current; // loaded by the caller we waited for
        }
        if (!leaderServedHere.test(id.leader())) {
          throw moving(id);
        }
        GroupCache loaded = loader.load(record.get(), newIncarnation());
        LOG.debug("G-Store loaded group {} ({} members, newest commit {}, incarnation {})", id,
            record.get().members(MemberState.Status.JOINED).size(), loaded.lastCommitTs(), loaded.incarnation);
        return install(loaded);
      }
    } finally {
      loading.remove(id, lock);
    }
  }

  private synchronized GroupCache install(GroupCache loaded) throws NotServingRegionException {
    if (released.contains(loaded.group)) {
      return null;
    }
    if (!leaderServedHere.test(loaded.group.leader())) {
      throw moving(loaded.group.id());
    }
    GroupCache current = caches.get(loaded.group.id());
    if (current != null && current.closed() == GroupCache.Closed.REGION_CLOSING) {
      throw moving(loaded.group.id()); // still draining: the next load comes after it is forgotten
    }
    caches.put(loaded.group.id(), loaded);
    return loaded;
  }

  /** What the group's loaded cache counted, or {@link GroupCache.Activity#NONE} if none is loaded here. */
  GroupCache.Activity activity(GroupId id) {
    GroupCache cache = caches.get(id);
    return cache == null ? GroupCache.Activity.NONE : cache.activity();
  }

  /**
   * The cache of a group being deleted whose commits are still being shipped (its memory knows their outcomes), or
   * null.
   */
  GroupCache releasing(GroupId id) {
    GroupCache cache = caches.get(id);
    return cache != null && cache.closed() == GroupCache.Closed.RELEASED ? cache : null;
  }

  /** Stops commits on a group about to be deleted; returns its cache (to drain), or null if none is loaded. */
  GroupCache release(GroupId id) throws IOException {
    Optional<GroupRecord> record = groups.find(id);
    synchronized (this) {
      record.ifPresent(r -> released.add(r.group()));
    }
    GroupCache cache = caches.get(id);
    if (cache != null) {
      closeUnderCommitLock(cache, GroupCache.Closed.RELEASED);
    }
    return cache;
  }

  /** Stops commits on every group led from a closing region; returns their caches, to drain. */
  synchronized List<GroupCache> closeRegion(Predicate<Key> inRegion) {
    List<GroupCache> closing = new ArrayList<>();
    for (GroupCache cache : caches.values()) {
      if (inRegion.test(cache.group.leader())) {
        closeUnderCommitLock(cache, GroupCache.Closed.REGION_CLOSING);
        closing.add(cache);
      }
    }
    return closing;
  }

  /** Drops a closed cache once its commits are shipped; the group's next use loads afresh. */
  void forget(GroupCache cache) {
    caches.remove(cache.group.id(), cache);
  }

  /** Stops loading; the caches already loaded stay as they are. */
  /** Loads a new group's cache in the background, so its first transaction does not wait for it. */
  public void preload(GroupId id) {
    preloader.execute(() -> {
      try {
        get(id);
      } catch (IOException | RuntimeException e) {
        LOG.debug("preloading group {} failed; its first transaction loads it ({})", id, e.toString());
      }
    });
  }

  void close() {
    preloader.shutdownNow();
    loader.close();
  }

  private synchronized boolean isReleased(GroupRef group) {
    return released.contains(group);
  }

  /** Waits for a commit in progress, so that every commit is either in the cache before it closes or refused. */
  private static void closeUnderCommitLock(GroupCache cache, GroupCache.Closed why) {
    cache.commitLock.lock();
    try {
      cache.close(why);
    } finally {
      cache.commitLock.unlock();
    }
  }

  private static long newIncarnation() {
    long id;
    do {
      id = ThreadLocalRandom.current().nextLong();
    } while (id == 0); // 0 is what a request without an incarnation carries
    return id;
  }

  /**
   * Refuses, retryably, a call about a group still being created (a transaction, or {@code getGroup}): its client
   * cannot have been told CREATED yet, unless the leader restarted before its deferred ACTIVE record was written
   * and is now re-forming the group (a round trip to the members: see docs/protocol.md, "Deferred records").
   * {@link RegionTooBusyException} makes HBase's client call again after its pause, instead of the application
   * hearing that the group does not exist.
   */
  public static void requireFormed(GroupId id, Optional<GroupRecord> record) throws RegionTooBusyException {
    if (record.isPresent() && record.get().phase() == GroupPhase.CREATING) {
      throw new RegionTooBusyException("group " + id + " is being created (or re-formed after its leader"
          + " restarted); retry");
    }
  }

  public static NotServingRegionException moving(GroupId id) {
    return new NotServingRegionException("the leader region of group " + id + " is closing here; retry at its"
        + " next host");
  }
}
