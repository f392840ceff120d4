package org.gstore.coprocessor.server;

import java.io.Closeable;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.regionserver.Region;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.Step;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.txn.GroupHandover;
import org.gstore.recovery.OutageStep;
import org.gstore.recovery.hbase.WalFiles;
import org.gstore.recovery.hbase.WalRecovery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * G-Store regions opening and closing on one region server, through the phases of {@link RegionPhases}. A region
 * that opens goes through three steps, each only while it stays open: its rows' protocol state is read and its
 * grouped rows fenced (FENCED: from then on writes are checked against the fence, and a replay can write through
 * it); the WAL of every region server HBase has declared dead is replayed (its groups may be led from this region,
 * and must not serve from a state that misses acknowledged commits); then the state is read again (a zombie of the
 * region's last host may have written some before its log was fenced, never after: see {@link StepWriter}) and the
 * engine serves the region's rows (SERVING). A region that closes (CLOSING) stops serving and drains what was
 * decided about it.
 *
 * <p>Threads: state is read on a loader thread and recovery runs on a recovery thread, so that a region that must
 * wait for either never holds the protocol thread, and one region waiting for recovery never holds another.
 */
final class RegionLifecycle implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(RegionLifecycle.class);

  private final StateTables tables;
  private final HostedRegions hosted;
  private final ProtocolRuntime runtime;
  private final WalRecovery recovery;
  private final GroupHandover handover;
  private final GStoreMetrics metrics;
  private final BooleanSupplier serverStopping;
  private final BooleanSupplier crashed;
  private final RegionPhases phases;
  /**
   * How long a closing region waits for its decisions to be durable and out. A region that cannot drain hands over
   * to the crash path, as HBase does when a closing region cannot flush: the writer is halted (what it holds is
   * never written nor let out, since the region's next host may load before it lands) and the region server
   * aborts, so that its groups are recovered from durable state. Decisions whose effects left are durable already
   * ({@link StepWriter}), so nothing is lost that a crash would not lose.
   */
  private static final long DRAIN_MILLIS = 30_000;
  /**
   * The wait while the whole region server stops. The state tables may live on this very server, which refuses
   * writes once it stops: every region would wait in vain, one after the other (a rolling restart of the server
   * hosting {@code gstore:groups} took 30 s per G-Store region). After one such wait fails, the writer is halted
   * and the others do not wait.
   */
  private static final long STOPPING_DRAIN_MILLIS = 5_000;
  /**
   * The longest pause between a loading region's tries (its state tables or a dead server's WAL not ready yet): a
   * try costs a few reads, and every second between the cause's end and the next try is a second its rows stall.
   */
  private static final long LOAD_RETRY_MAX_MILLIS = 1_000;
  private final StepWriter writer;
  /** Stops the region server as if it had crashed. */
  private final java.util.function.BiConsumer<String, Throwable> fatal;
  /** Loads regions' state, one region's at a time; a region that must wait is tried again later, not held. */
  private final ScheduledExecutorService loaderThread;
  /** Runs recovery passes, one region's at a time; a region that must wait is tried again later, not held. */
  private final ScheduledExecutorService recoveryThread;
  private volatile boolean closed;
  /** Regions waiting for the replay of a dead server's WAL, and since when (for the REPLAY_BLOCKED alert). */
  private final java.util.Map<String, Long> replayWaits = new java.util.concurrent.ConcurrentHashMap<>();
  /** This region server's name, in its {@link OutageStep} lines. */
  private final String self;
  /** Per region opening here: its open step, then its wait for dead servers' WALs; each ends once. */
  private final java.util.Map<String, OutageStep> opening = new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.Map<String, OutageStep> waitingForReplay = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * @param serverStopping whether the region server stops as a whole (every region closes, none reopens here)
   * @param crashed whether G-Store stopped here as if killed: a closing region then drains nothing
   */
  RegionLifecycle(String self, StateTables tables, HostedRegions hosted, ProtocolRuntime runtime, StepWriter writer,
      WalRecovery recovery, GroupHandover handover, GStoreMetrics metrics, BooleanSupplier serverStopping,
      BooleanSupplier crashed, java.util.function.BiConsumer<String, Throwable> fatal, ThreadFactory loaderThreads,
      ThreadFactory recoveryThreads) {
    this.self = self;
    this.writer = writer;
    this.fatal = fatal;
    this.tables = tables;
    this.hosted = hosted;
    this.phases = hosted.phases();
    this.runtime = runtime;
    this.recovery = recovery;
    this.handover = handover;
    this.metrics = metrics;
    this.serverStopping = serverStopping;
    this.crashed = crashed;
    this.loaderThread = Executors.newSingleThreadScheduledExecutor(loaderThreads);
    this.recoveryThread = Executors.newSingleThreadScheduledExecutor(recoveryThreads);
  }

  /** A G-Store region opened here: it serves once its state is loaded and no dead server's log is unreplayed. */
  void opened(Region region) {
    phases.opened(region.getRegionInfo().getEncodedName());
    String name = region.getRegionInfo().getRegionNameAsString();
    endStep(opening.put(region.getRegionInfo().getEncodedName(),
        OutageStep.start(OutageStep.Kind.REGION_OPEN, self, null, name)), "reopened");
    runtime.engine().thenAcceptAsync(e -> load(region, Backoff.FIRST_MILLIS), loaderThread);
  }

  /** Whether {@code key} is in a region open here (not closing). */
  boolean serves(Key key) {
    Region region = hosted.regionOf(key);
    return region != null && phases.isOpen(region.getRegionInfo().getEncodedName());
  }

  private boolean isOpen(RegionInfo info) {
    return !closed && phases.isOpen(info.getEncodedName());
  }

  /**
   * Loads the region's rows' protocol state and fences its grouped rows. A region that must wait (a dead log's
   * protocol state not in the tables yet, a state table in transition) is tried again after {@code backoff} as a
   * new task, so that regions opening behind it on this server are not held too.
   */
  private void load(Region region, long backoff) {
    RegionInfo info = region.getRegionInfo();
    if (!isOpen(info)) {
      return;
    }
    try {
      // dead servers' logged protocol state first: the fence must include it
      recovery.replayProtocolState(k -> HostedRegions.contains(info, k), WalRecovery.REGION_WAIT_MILLIS);
      StateTables.Loaded state = tables.load(info.getTable().getNameAsString(), info.getStartKey(),
          info.getEndKey());
      runtime.input(engine -> {
        if (phases.isOpen(info.getEncodedName())) { // the fence first: the region takes writes once fenced
          state.owners().forEach(o -> hosted.fence(o.key(), o.group()));
          phases.fenced(info.getEncodedName());
        }
        return Step.NOTHING;
      });
      metrics.regionStateLoaded();
      recoveryThread.execute(() -> serveAfterRecovery(region, Backoff.FIRST_MILLIS));
    } catch (java.io.IOException | RuntimeException e) { // the region must not wait on a task that ended
      LOG.info("cannot load G-Store state of {} yet ({}); retrying", info.getRegionNameAsString(), e.toString());
      try {
        loaderThread.schedule(() -> load(region, Math.min(Backoff.next(backoff), LOAD_RETRY_MAX_MILLIS)), backoff, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException stopping) {
        // G-Store is stopping here: the region's next host loads it
      }
    }
  }

  /**
   * Serves the region once no log that may hold its groups is left unreplayed. A region that must wait is tried
   * again after {@code backoff} as a new task, so that regions opening behind it on this server are not held too.
   */
  private void serveAfterRecovery(Region region, long backoff) {
    RegionInfo info = region.getRegionInfo();
    if (!isOpen(info)) {
      replayWaits.remove(info.getEncodedName());
      return;
    }
    StateTables.Loaded state;
    try {
      WalRecovery.Pass pass = recovery.recoverDeadServers(k -> HostedRegions.contains(info, k),
          WalRecovery.REGION_WAIT_MILLIS);
      metrics.recovered(pass);
      // read again now that every dead server's log is fenced: a zombie of the region's last host may have written
      // state since the first read, but none after the fence that it let out (StepWriter checks it)
      state = tables.load(info.getTable().getNameAsString(), info.getStartKey(), info.getEndKey());
    } catch (Throwable e) { // NOPMD: the region must not wait forever on a task that died
      if (e instanceof WalFiles.CorruptWalException) {
        LOG.error("{}; {} waits for an operator", e.getMessage(), info.getRegionNameAsString());
      } else {
        LOG.warn("G-Store cannot replay the WAL of dead servers yet ({}); {} waits for it", e.toString(),
            info.getRegionNameAsString());
      }
      replayWaits.putIfAbsent(info.getEncodedName(), System.currentTimeMillis());
      waitingForReplay.computeIfAbsent(info.getEncodedName(),
          r -> OutageStep.start(OutageStep.Kind.REPLAY_WAIT, self, null, info.getRegionNameAsString()));
      try {
        recoveryThread.schedule(() -> serveAfterRecovery(region, Math.min(Backoff.next(backoff), LOAD_RETRY_MAX_MILLIS)), backoff,
            TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException stopping) {
        // G-Store is stopping here: the region's next host recovers
      }
      return;
    }
    replayWaits.remove(info.getEncodedName());
    endStep(waitingForReplay.remove(info.getEncodedName()), "ok");
    runtime.input(engine -> {
      if (!phases.isOpen(info.getEncodedName())) {
        return Step.NOTHING; // closed while loading
      }
      hosted.refence(info, state.owners());
      if (!hosted.markReady(region)) {
        return Step.NOTHING; // began to close meanwhile: its next host loads it
      }
      engine.load(state.groups(), state.owners(), ProtocolRuntime.now());
      endStep(opening.remove(info.getEncodedName()), "serving");
      LOG.debug("G-Store loaded {} groups and {} grouped rows of {}", state.groups().size(),
          state.owners().size(), info.getRegionNameAsString());
      return Step.NOTHING;
    });
  }

  /**
   * A G-Store region is closing: stop serving its keys and wait until every decision already taken about them is
   * durable, so that the region's next host loads all of it. Acts once per region: a later call (the coprocessor's
   * stop, after its preClose) must not touch the keys, which daughters of a split may already serve.
   *
   * @throws IOException if the region could not drain and the region server is not stopping as a whole: the close
   *     must fail, so that HBase aborts the server instead of reporting the region closed (its next host would open
   *     it while this server lives, and skip its WAL)
   */
  void closing(RegionInfo info) throws java.io.IOException {
    replayWaits.remove(info.getEncodedName()); // its next host waits for the replay, if anyone must
    endStep(waitingForReplay.remove(info.getEncodedName()), "closed");
    endStep(opening.remove(info.getEncodedName()), "closed");
    if (crashed.getAsBoolean()) {
      if (phases.isOpen(info.getEncodedName()) && !serverStopping.getAsBoolean()) {
        // G-Store stopped here as if crashed (a fatal cause, or a test's kill) but HBase still serves: a close that
        // completed would let the region open elsewhere while this server is live, whose WAL no one replays then
        throw new java.io.IOException("G-Store on this server stopped as if it had crashed: region "
            + info.getRegionNameAsString() + " cannot hand over its groups' commits, so it must not close while"
            + " the server lives; the region server aborts and the region reopens once its WAL is replayed");
      }
      return; // the server aborts or stops: its regions open elsewhere after it is declared dead, and replayed
    }
    if (!phases.closing(info.getEncodedName())) {
      return;
    }
    OutageStep drain = OutageStep.start(OutageStep.Kind.REGION_DRAIN, self, null, info.getRegionNameAsString());
    try {
      handover.regionClosing(k -> HostedRegions.contains(info, k), serverStopping);
    } catch (java.io.InterruptedIOException e) {
      drain.failed(e);
      cannotDrain(info, e);
      return;
    }
    long waitMillis = serverStopping.getAsBoolean() ? STOPPING_DRAIN_MILLIS : DRAIN_MILLIS;
    try {
      runtime.unload(k -> HostedRegions.contains(info, k), () -> hosted.remove(info))
          .get(waitMillis, TimeUnit.MILLISECONDS);
      drain.ok();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      drain.failed(e);
      cannotDrain(info, e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
        | RuntimeException e) {
      drain.failed(e);
      cannotDrain(info, e);
    }
  }

  private static void endStep(OutageStep step, String outcome) {
    if (step != null) {
      step.end(outcome);
    }
  }

  /**
   * The region's next host may load it before what this server decided about it is written: the writer must never
   * write it or let it out, and the server stops as if it had crashed (while it stops anyway, it just stops).
   */
  private void cannotDrain(RegionInfo info, Exception e) throws java.io.IOException {
    String why = "closing region " + info.getRegionNameAsString() + " could not drain its G-Store state ("
        + e + ")";
    writer.halt(why);
    if (serverStopping.getAsBoolean()) { // read again: a graceful stop may have begun during the wait
      LOG.warn("G-Store on a stopping server: {}; its groups are recovered as after a crash", why);
      return;
    }
    fatal.accept(why, e);
    throw new java.io.IOException("G-Store: " + why + "; the region server aborts", e);
  }

  /** How long the region waiting longest for the replay of a dead server's WAL has waited (0: none waits). */
  long longestReplayWaitMillis(long now) {
    return replayWaits.values().stream().mapToLong(since -> Math.max(0, now - since)).max().orElse(0);
  }

  @Override
  public void close() {
    closed = true;
    loaderThread.shutdownNow();
    recovery.close();
    recoveryThread.shutdownNow();
  }
}
