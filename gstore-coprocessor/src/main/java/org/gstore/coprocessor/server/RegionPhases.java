package org.gstore.coprocessor.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Where each G-Store region open on this server is in its life, by encoded region name (unique per region, daughters
 * of a split included). A pure state machine: every transition is atomic and happens only from the phase it names,
 * so a step that raced with a close (a load finishing after the region began to close) is refused, not applied.
 *
 * <pre>
 *   opened ─► LOADING ─fenced─► FENCED ─serving─► SERVING
 *                │                 │                 │
 *                │                 └──── closing ────┴─► CLOSING ─closed─► (gone)
 *                └─────────────────────── closing ─────────────────────────► (gone)
 * </pre>
 *
 * <ul>
 *   <li>{@code LOADING}: its rows' protocol state is being read; plain writes wait.
 *   <li>{@code FENCED}: its grouped rows are fenced, so writes are checked against the fence, and a replay can write
 *       through it; the logs of dead servers are being replayed and G-Store calls wait.
 *   <li>{@code SERVING}: the engine serves its rows.
 *   <li>{@code CLOSING}: it drains what was decided about its rows; writes are still checked (the shipper may have to
 *       write the commits of the groups it leads), and no step of its load or recovery may apply any more. A region
 *       that closes before its fence is loaded is forgotten at once: it never took a write, and never will here.
 * </ul>
 */
final class RegionPhases {
  enum Phase { LOADING, FENCED, SERVING, CLOSING }

  /**
   * How many calls may wait at once for regions to load ({@link #await}): each holds an RPC handler (HBase starts 30
   * by default), so the rest are refused at once, as before, and the server keeps handlers for other regions.
   */
  static final int MAX_WAITING_CALLS = 8;

  private final Map<String, Phase> phases = new ConcurrentHashMap<>();
  private final Semaphore waitingCalls = new Semaphore(MAX_WAITING_CALLS);
  /** Notified at every transition, for {@link #await}. */
  private final Object changed = new Object();
  private volatile boolean stopped;

  /** The region opened here: its load begins (a region reopened here begins anew). */
  void opened(String region) {
    phases.put(region, Phase.LOADING);
    changed();
  }

  /**
   * Waits at most {@code millis} while the region is open here and {@code done} is false; returns
   * {@code done}'s last answer. A call that arrives while its region loads waits here for the load rather than being
   * refused at once: HBase's client backs off longer after each refusal (10 s and more after eight), so refusing
   * a call for the whole of a load made its client come back seconds after the region served, as HBase itself
   * waits {@code hbase.busy.wait.duration} before it refuses a busy region. At most {@link #MAX_WAITING_CALLS} wait.
   */
  boolean await(String region, Predicate<String> done, long millis) {
    if (done.test(region) || !waitingCalls.tryAcquire()) {
      return done.test(region);
    }
    try {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
      synchronized (changed) {
        // open, not only loading: a region becomes SERVING a moment before it is ready (HostedRegions#markReady)
        while (!done.test(region) && isOpen(region) && !stopped) {
          long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
          if (left <= 0) {
            break;
          }
          changed.wait(left);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      waitingCalls.release();
    }
    return done.test(region);
  }

  /** How many calls wait in {@link #await} now. */
  int callsWaiting() {
    return MAX_WAITING_CALLS - waitingCalls.availablePermits();
  }

  /**
   * G-Store stops here (its region server aborts, or it crashed): no region loads any more, so no call waits (a
   * region closing then changes no phase: its next host loads it).
   */
  void stopAll() {
    stopped = true;
    changed();
  }

  /** Wakes the calls waiting in {@link #await}: a region moved on (or became ready: {@link HostedRegions}). */
  void changed() {
    synchronized (changed) {
      changed.notifyAll();
    }
  }


  /** LOADING to FENCED; false if the region is in another phase (it began to close meanwhile). */
  boolean fenced(String region) {
    return move(region, Phase.LOADING, Phase.FENCED);
  }

  /** FENCED to SERVING; false if the region is in another phase. */
  boolean serving(String region) {
    return move(region, Phase.FENCED, Phase.SERVING);
  }

  /**
   * FENCED or SERVING to CLOSING, LOADING to forgotten; false if the region is closing already or unknown (a close
   * acts once).
   */
  boolean closing(String region) {
    boolean[] moved = new boolean[1];
    phases.computeIfPresent(region, (r, p) -> {
      moved[0] = p != Phase.CLOSING;
      return p == Phase.LOADING ? null : Phase.CLOSING;
    });
    changed();
    return moved[0];
  }

  /** The region's close finished: it is forgotten (if it is still closing). */
  void closed(String region) {
    phases.remove(region, Phase.CLOSING);
    changed();
  }

  /** Whether the region is open and not closing. */
  boolean isOpen(String region) {
    Phase p = phases.get(region);
    return p != null && p != Phase.CLOSING;
  }

  /** Whether plain writes to the region are checked against its fence (not before it is loaded). */
  boolean takesWrites(String region) {
    Phase p = phases.get(region);
    return p == Phase.FENCED || p == Phase.SERVING || p == Phase.CLOSING;
  }

  private boolean move(String region, Phase from, Phase to) {
    boolean moved = phases.replace(region, from, to);
    changed();
    return moved;
  }
}
