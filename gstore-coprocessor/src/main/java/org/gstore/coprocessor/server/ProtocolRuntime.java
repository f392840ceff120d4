package org.gstore.coprocessor.server;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.gstore.common.protocol.ClientRequest;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.ProtocolConfig;
import org.gstore.common.protocol.ProtocolNode;
import org.gstore.common.protocol.ProtocolStats;
import org.gstore.common.protocol.Reply;
import org.gstore.common.protocol.Step;
import org.gstore.common.wire.DatagramRejectedException;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.transport.HBaseKeyLocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Key Grouping protocol engine of one region server on its own thread. The engine is single-threaded, so every
 * input (a datagram, a client request, a timer, a region's state) runs on the protocol thread, and each step it
 * returns goes to the {@link StepWriter}, which makes it durable before its datagrams and answers leave. The engine
 * exists once the state tables do and this node's reserved uids are read; inputs wait for it.
 */
final class ProtocolRuntime implements Closeable {
  /**
   * What must hold before the engine exists: the state tables exist, every log that may hold protocol state they
   * miss is replayed into them, and this node's reserved uids are read from them (returned).
   */
  @FunctionalInterface
  interface Startup {
    long reservedUids() throws IOException;
  }

  private static final Logger LOG = LoggerFactory.getLogger(ProtocolRuntime.class);

  private final NodeId self;
  private final ProtocolConfig protocol;
  private final long waitMillis;
  private final Startup startup;
  private final HostedRegions hosted;
  private final HBaseKeyLocator locator;
  private final GStoreMetrics metrics;
  private final StepWriter writer;
  private final ClientWaiters waiters;
  private final ScheduledExecutorService thread;
  /**
   * Creates the engine, off the protocol thread: its startup may wait minutes for the state tables (their region in
   * transition while the master restarts), and the protocol thread must drain closing regions meanwhile.
   */
  private final ExecutorService startThread;
  private final CompletableFuture<ProtocolNode> engine = new CompletableFuture<>();
  /** The timer of the engine's next wake-up; protocol thread only. */
  private ScheduledFuture<?> wakeup;
  private long wakeupAt = Long.MAX_VALUE;
  private volatile boolean closed;

  /**
   * @param waitMillis how long a caller on another thread waits for the engine's record of a group
   */
  ProtocolRuntime(NodeId self, ProtocolConfig protocol, long waitMillis, Startup startup, HostedRegions hosted,
      HBaseKeyLocator locator, GStoreMetrics metrics, StepWriter writer, ClientWaiters waiters, ThreadFactory threads,
      ThreadFactory startThreads) {
    this.self = self;
    this.protocol = protocol;
    this.waitMillis = waitMillis;
    this.startup = startup;
    this.hosted = hosted;
    this.locator = locator;
    this.metrics = metrics;
    this.writer = writer;
    this.waiters = waiters;
    this.thread = Executors.newSingleThreadScheduledExecutor(threads);
    this.startThread = Executors.newSingleThreadExecutor(startThreads);
  }

  /**
   * Creates the state tables if needed, then the engine above this node's reserved uids, on a thread of its own.
   * Inputs wait for the engine; a region that closes before it exists has nothing to drain.
   */
  void start() {
    startThread.execute(this::startEngine);
    startThread.shutdown(); // its one task runs on; the thread ends with it
  }

  private void startEngine() {
    long backoff = 100;
    while (!closed) {
      try {
        long reserved = startup.reservedUids();
        engine.complete(new ProtocolNode(self, protocol, hosted::hosts, locator, reserved));
        return;
      } catch (IOException | RuntimeException e) {
        LOG.info("G-Store state tables not available yet ({}); retrying", e.toString());
        Backoff.sleep(backoff);
        backoff = Backoff.next(backoff);
      }
    }
  }

  /** Completes with the engine once it exists. */
  CompletableFuture<ProtocolNode> engine() {
    return engine;
  }

  /** Submits a client request; the future completes with the leader's answer. */
  CompletableFuture<Reply> submit(ClientRequest request) {
    CompletableFuture<Reply> reply = waiters.await(request.requestId());
    input(engine -> engine.handle(request, now()));
    return reply;
  }

  /** A datagram arrived over UDP (authentic: the transport checked it). */
  void receive(Datagram d) {
    if (!d.to().equals(self)) { // authentic but meant for another server (or an earlier one on this port)
      metrics.datagramDropped(DatagramRejectedException.Reason.MISADDRESSED);
      return;
    }
    input(engine -> engine.receive(d, now()));
  }

  /** The engine's record of a group. */
  CompletableFuture<Optional<GroupRecord>> group(GroupId id) {
    CompletableFuture<Optional<GroupRecord>> result = new CompletableFuture<>();
    input(engine -> {
      result.complete(engine.group(id));
      return Step.NOTHING;
    });
    return result;
  }

  /** The groups this server leads that are being created or active, read on the protocol thread. */
  Map<GroupId, GroupRecord> liveGroups() throws IOException {
    CompletableFuture<Map<GroupId, GroupRecord>> result = new CompletableFuture<>();
    input(engine -> {
      Map<GroupId, GroupRecord> live = new HashMap<>();
      for (GroupRecord g : engine.unendedGroups()) { // not every tombstone, every second
        if (g.phase() == GroupPhase.CREATING || g.phase() == GroupPhase.ACTIVE) {
          live.put(g.id(), g);
        }
      }
      result.complete(live);
      return Step.NOTHING;
    });
    try {
      return result.get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted reading the groups led here");
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("G-Store could not read the groups led here in time; retry", e);
    }
  }

  /** The engine's record of a group, waited for on the caller's thread (at most the endpoint wait). */
  Optional<GroupRecord> awaitGroup(GroupId id) throws IOException {
    try {
      return group(id).get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted reading group " + id);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("G-Store could not read the state of group " + id + " in time; retry", e);
    }
  }

  /**
   * The engine stops serving the keys {@code inRegion} holds (their region closes); completes once every decision
   * already taken about them is durable, so that the region's next host loads all of it.
   */
  CompletableFuture<Void> unload(Predicate<Key> inRegion, Runnable beforeUnload) {
    CompletableFuture<Void> drained = new CompletableFuture<>();
    thread.execute(() -> {
      beforeUnload.run();
      ProtocolNode e = engine.getNow(null);
      if (e != null) {
        writer.submit(e.unload(inRegion));
      }
      writer.drained(inRegion).whenComplete((v, t) -> {
        if (t == null) {
          drained.complete(null);
        } else {
          drained.completeExceptionally(t); // halted: what the region decided may never be written
        }
      });
    });
    return drained;
  }

  /** Runs an engine input on the protocol thread (once the engine exists) and passes its step on. */
  void input(Function<ProtocolNode, Step> input) {
    engine.thenAcceptAsync(e -> {
      if (closed) {
        return;
      }
      try {
        writer.submit(input.apply(e));
      } catch (Throwable ex) { // NOPMD: an Error must not skip the wake-up below, or the engine's timers stop
        LOG.error("G-Store protocol step failed", ex);
      } finally {
        scheduleWakeup(e);
      }
    }, thread);
  }

  private void scheduleWakeup(ProtocolNode e) {
    long next = e.nextWakeup();
    if (next >= wakeupAt || next == Long.MAX_VALUE) {
      return;
    }
    if (wakeup != null) {
      wakeup.cancel(false);
    }
    wakeupAt = next;
    wakeup = thread.schedule(() -> {
      wakeupAt = Long.MAX_VALUE;
      wakeup = null;
      input(engine -> engine.tick(now()));
    }, Math.max(0, next - now()), TimeUnit.MILLISECONDS);
  }

  /** The engine's figures for the metrics (zeros before it exists). */
  ProtocolStats stats() {
    ProtocolNode e = engine.getNow(null);
    return e == null ? new ProtocolStats() : e.stats();
  }

  long retryTimeoutMillis() {
    ProtocolNode e = engine.getNow(null);
    return e == null ? 0L : e.retryTimeoutMillis();
  }

  int groupsLed() {
    ProtocolNode e = engine.getNow(null);
    return e == null ? 0 : e.groupCount();
  }

  static long now() {
    return System.currentTimeMillis();
  }

  @Override
  public void close() {
    closed = true;
    startThread.shutdownNow();
    thread.shutdownNow();
  }
}
