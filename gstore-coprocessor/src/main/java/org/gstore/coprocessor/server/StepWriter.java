package org.gstore.coprocessor.server;

import org.gstore.coprocessor.concurrent.BatchingThread;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.Reply;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.Step;
import org.gstore.coprocessor.wal.WalFencedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The output stage of the protocol: makes the engine's steps durable, then lets their effects out. Steps queue in
 * the order the engine took them; the writer takes all that are waiting, collapses their changes (last change per
 * row wins, as if applied one by one) and writes them in one batch per table, so protocol state gets group commit.
 * Only after that does it fence or unfence rows, send the steps' datagrams and answer their clients. A step's
 * early datagrams (a new group's {@code J}s) leave when it is submitted, before its write ({@link Step#early()}).
 *
 * <p>A step's deferred changes ({@link Step#deferred()}) are not waited for: they are carried over and written with
 * the next batch that writes their table anyway, so they cost no call of their own when more protocol work follows
 * (a delete after a create, a create after a delete; see {@link WritePlan}). When none comes within
 * {@link #LINGER_MILLIS}, the writer wakes itself and writes them alone. A barrier (a closing region) writes them
 * at once.
 *
 * <p>Rows are fenced and unfenced ({@link FenceUpdates}) only once the changes behind it are durable.
 *
 * <p>A zombie lets nothing out: in each batch, after its write and before any effect leaves (those of steps with
 * nothing to write included), the writer proves that no recovery has fenced this server ({@link ServerFence}), so
 * that every state change behind a datagram or an answer is one the rows' next hosts load. A server found fenced
 * writes nothing more and is stopped ({@code mustStop}). Without this, a leader paused past its ZooKeeper session
 * could, through a client with a stale location, write {@code DELETING} after its group's new leader had loaded the
 * group, and send the releases: the members would give the rows back while the new leader still serves the group.
 *
 * <p>A writer is also halted ({@link #halt}) when a closing region could not drain in time: its next host may load
 * the region before the queued steps are written, so none of them may be written or let out any more, the write in
 * hand included; the server must then stop as if it had crashed.
 */
public final class StepWriter implements Closeable {
  /** Where protocol state becomes durable ({@link StateTables}). */
  interface Store {
    /** Makes {@code changes} (one per target) durable before returning. */
    void write(List<StateChange> changes) throws IOException;

    /** Completes once every change written so far is in the state tables, where a region's next host loads it. */
    default CompletableFuture<Void> inTables() {
      return CompletableFuture.completedFuture(null);
    }

    /** A mark of everything written so far, for {@link #inTables(long)}; written to on the writer thread only. */
    default long mark() {
      return 0;
    }

    /** Whether everything written up to {@code mark} ({@link #mark}) is in the state tables. */
    default boolean inTables(long mark) {
      return true;
    }
  }

  /** Whether a recovery has fenced this server ({@link org.gstore.coprocessor.wal.SharedWal#checkNotFenced}). */
  interface ServerFence {
    /**
     * Returns if no recovery had fenced this server when it was called.
     *
     * @throws WalFencedException if one had
     * @throws IOException if it cannot tell (retried)
     */
    void check() throws IOException;
  }

  /**
   * How long deferred changes wait for a batch to share: writing them at once, alone, would only move their write
   * in front of the next step (traced: a create right after a delete waited for the delete's ENDED write).
   */
  static final long LINGER_MILLIS = 100;
  /**
   * A wake-up this late means the server was held up (a pause, a stall): before writing its carried changes it
   * checks that no recovery fenced it meanwhile, as a zombie's write could otherwise land after the next host's
   * (whose versions it would overtake). An on-time wake-up checks after its write, as every batch does. Far below
   * a ZooKeeper session (a server is fenced only once it lost its own), far above a busy machine's delays.
   */
  static final long LATE_WAKE_UP_MILLIS = 3_000;
  private static final Logger LOG = LoggerFactory.getLogger(StepWriter.class);

  private final Store store;
  private final ServerFence fence;
  private final BiConsumer<String, Throwable> mustStop;
  /** Every effect leaves through it; closed when a recovery fenced this server or a drain failed. */
  private final HaltGate gate = new HaltGate();
  /** Barriers not completed yet: a halt fails them at once. */
  private final Set<CompletableFuture<Void>> pendingBarriers = ConcurrentHashMap.newKeySet();
  private final FenceUpdates fences;
  private final GStoreMetrics metrics;
  /** Where released effects go. */
  private final WriterBatch.Release release;
  private final BiConsumer<String, Throwable> fail;
  private final BatchingThread<Object> thread;
  /** Deferred changes not written yet; touched by the writer thread only. */
  private List<StateChange> carried = List.of();
  /** A {@link WriterBatch#WRITE_CARRIED} wake-up is scheduled; writer thread only. */
  private boolean lingering;
  /** When the scheduled wake-up was due ({@code System.nanoTime()}); writer thread only. */
  private long wakeUpDue;
  /** Submitted steps that reserve uids and are not written yet: early datagrams wait while there are any. */
  private final AtomicInteger reservationsUnwritten = new AtomicInteger();
  /** Steps queued so far, each numbered in turn from 1; protocol thread only. */
  private long submitted;
  /** The newest step to touch each key: a closing region waits only for its own; protocol thread only. */
  private final TouchedKeys touched = new TouchedKeys();
  /** Steps taken from the queue so far (numbered as they were submitted: the queue keeps their order); writer only. */
  private long taken;
  /** The first step of the batch in hand; writer thread only. */
  private long batchFirst;
  /** The number of the oldest step whose deferred changes may be among those carried, 0 if none; writer only. */
  private long oldestCarried;
  private final SettledSteps settled = new SettledSteps();
  /**
   * @param fail tells the client waiting under a request id that its step could not be written (an unexpected
   *     failure, never an I/O error: those are retried until the state is durable)
   * @param mustStop told, once, why this server must stop as if it had crashed: a recovery fenced it, or a batch of
   *     steps failed unexpectedly (the engine counts its decisions taken; they may be neither durable nor out)
   */
  StepWriter(String name, Store store, ServerFence fence, BiConsumer<String, Throwable> mustStop,
      FenceUpdates fences, GStoreMetrics metrics, Consumer<Datagram> send,
      Consumer<Reply> answer, BiConsumer<String, Throwable> fail) {
    this.store = store;
    this.fence = fence;
    this.mustStop = mustStop;
    this.fences = fences;
    this.metrics = metrics;
    this.release = new WriterBatch.Release(send, answer, this::pass);
    this.fail = fail;
    this.thread = new BatchingThread<>("gstore-writer-" + name, items -> write(new WriterBatch(items)),
        (items, e) -> failed(new WriterBatch(items), e));
  }

  /**
   * The batch failed unexpectedly (a bug: I/O errors are retried until durable): its clients get the error and the
   * writer halts, telling the server to stop as if it had crashed. The engine already counts the batch's decisions
   * (a key joined, a group formed) that may be neither durable nor let out: going on, it would answer a duplicate
   * {@code J} from that state and a region's next host would load the key as free. After a halt, every region's
   * next host recovers this server's groups from what is durable, as after a crash.
   */
  private void failed(WriterBatch batch, Throwable e) {
    metrics.stateWriteFailed();
    String why = "a batch of protocol steps failed unexpectedly (" + e + ")";
    LOG.error("G-Store: {}; the region server stops as if it had crashed", why, e);
    gate.halt(why); // as halt() does, on this thread: no write in hand to interrupt
    failPendingBarriers();
    batch.fail(e, fail, this::fail);
    if (!thread.isClosed()) { // G-Store stopping here anyway: nothing to abort
      mustStop.accept(why, e);
    }
  }

  /** Completes a barrier, unless a halt failed it first. */
  private void pass(CompletableFuture<Void> barrier) {
    if (pendingBarriers.remove(barrier)) {
      barrier.complete(null);
    }
  }

  private void fail(CompletableFuture<Void> barrier, String why) {
    if (pendingBarriers.remove(barrier)) {
      barrier.completeExceptionally(new IllegalStateException("G-Store lets nothing out any more: " + why));
    }
  }

  /**
   * Stops this writer for good: nothing more is written, nothing more leaves (not even the effects of a write in
   * hand), and every drain fails. The caller makes the server stop as if it had crashed.
   */
  void halt(String why) {
    gate.halt(why);
    failPendingBarriers();
    // the write in hand (an HBase call retrying against unavailable state tables, say) stops at its next wait
    // rather than land later still; one that reached its region server already may land, and lets nothing out
    thread.interruptBatch();
  }

  /**
   * Runs {@code effects} (sending what the server decided earlier: a deleted group's held releases) unless this
   * writer is halted ({@link HaltGate}), so that once a halt returns none leaves. Returns whether they ran.
   */
  boolean letOut(Runnable effects) {
    return gate.letOut(effects);
  }

  /** Whether nothing is written or let out any more ({@link #halt}, or this server was found fenced). */
  boolean halted() {
    return gate.halted();
  }

  private void failPendingBarriers() {
    String why = gate.halted() ? gate.why() : "G-Store is stopping here";
    pendingBarriers.forEach(b -> fail(b, why));
  }

  /**
   * Queues a step to write, sending its early datagrams at once, unless uids reserved by it or by an earlier step
   * are not durable yet (the datagrams may carry ids of that block): then they wait for the step's write too.
   * Called by the protocol thread only.
   */
  void submit(Step step) {
    if (step.isEmpty() || gate.halted()) {
      return; // a fenced server's clients time out, as a dead server's do
    }
    if (step.reservesUids()) {
      reservationsUnwritten.incrementAndGet();
    }
    submitted++;
    touched.touch(step, submitted);
    if (touched.grew()) {
      touched.forget(settled.settled(store));
    }
    if (!step.early().isEmpty()) {
      List<Datagram> early = step.early();
      if (reservationsUnwritten.get() == 0 && gate.letOut(() -> early.forEach(release.send()))) {
        step = step.withEarlySent();
      } else {
        step = step.withoutEarly();
      }
    }
    thread.add(step);
  }

  /**
   * Completes once every step submitted before it is durable and out; fails if the writer halts first (those steps
   * may never be written).
   */
  CompletableFuture<Void> barrier() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    pendingBarriers.add(done);
    thread.add(done);
    if (gate.halted() || thread.isClosed()) {
      failPendingBarriers();
    }
    return done;
  }

  /**
   * Completes once every step submitted before it that changed state loaded with a key {@code inRegion} is durable,
   * out and in the state tables ({@link Store#inTables}): a closing region's wait. At once when all of them have
   * settled already, however many writes of other regions are pending (one retrying against a state table in
   * transition would otherwise hold every region's close); else a {@link #barrier} and every change in the tables.
   * Fails if the writer halts first. Called by the protocol thread only.
   */
  CompletableFuture<Void> drained(Predicate<Key> inRegion) {
    if (!gate.halted() && !thread.isClosed()) {
      long through = settled.settled(store);
      touched.forget(through);
      if (touched.lastIn(inRegion) <= through) {
        return CompletableFuture.completedFuture(null);
      }
    }
    return barrier().thenCompose(v -> store.inTables());
  }

  /** Steps (and barriers) in the order the engine produced them. */
  private void write(WriterBatch batch) {
    List<Step> steps = batch.steps();
    batchFirst = taken + 1;
    taken += steps.size();
    int reserving = (int) steps.stream().filter(Step::reservesUids).count();
    Runnable reservationsDurable = new Runnable() {
      private boolean done;

      @Override
      public void run() {
        if (!done) {
          done = true;
          reservationsUnwritten.addAndGet(-reserving);
        }
      }
    };
    try {
      write(batch, steps, reservationsDurable);
    } finally {
      reservationsDurable.run(); // failed: nothing to wait for any more
    }
  }

  /**
   * @param reservationsDurable run once the batch's uid reservations are durable, before any of its effects leaves
   *     (a barrier's caller may submit a step whose early datagrams must not wait for them any more)
   */
  private void write(WriterBatch batch, List<Step> steps, Runnable reservationsDurable) {
    if (batch.wakesUp()) {
      lingering = false; // before anything can throw: a failed batch must not stop the next wake-up
      if (System.nanoTime() - wakeUpDue > TimeUnit.MILLISECONDS.toNanos(LATE_WAKE_UP_MILLIS)
          && !durableAndNotFenced(List.of())) {
        failPendingBarriers(); // a pause held this server: it may be a zombie, so it proves it is not first
        return;
      }
    }
    WritePlan plan = WritePlan.of(carried, steps, batch.flushesCarried(), StateTables::tableOf);
    WriterBatch head = batch.headWithNothingToWrite();
    if (head.letsSomethingOut()) {
      if (!durableAndNotFenced(List.of()) || thread.isClosed() || !head.releaseAhead(gate, release)) {
        failPendingBarriers();
        return;
      }
      if (plan.now().isEmpty()) {
        finish(batch, plan, reservationsDurable);
        return;
      }
    }
    if (plan.now().isEmpty() && !batch.letsSomethingOut()) {
      finish(batch, plan, reservationsDurable); // nothing written, nothing leaves: no fence check to vouch for it
      return;
    }
    if (!durableAndNotFenced(plan.now())) {
      failPendingBarriers();
      return;
    }
    finish(batch, plan, reservationsDurable);
  }

  /** The batch's changes are durable and this server not fenced: its effects leave, in order, unless halted. */
  private void finish(WriterBatch batch, WritePlan plan, Runnable reservationsDurable) {
    reservationsDurable.run();
    carried = plan.later();
    // before anything that can throw: a failure releasing the batch must not leave carried changes unaccounted
    if (carried.isEmpty()) {
      oldestCarried = 0;
    } else if (oldestCarried == 0) {
      oldestCarried = batchFirst; // carried changes come from this batch's steps
    }
    if (!carried.isEmpty() && !lingering) {
      lingering = true;
      wakeUpDue = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);
      CompletableFuture.delayedExecutor(LINGER_MILLIS, TimeUnit.MILLISECONDS)
          .execute(() -> thread.add(WriterBatch.WRITE_CARRIED));
    }
    if (gate.halted()) {
      failPendingBarriers();
      return;
    }
    fences.apply(plan.now());
    if (thread.isClosed() || !gate.letOut(() -> batch.release(release))) {
      failPendingBarriers();
      return;
    }
    settled.written(oldestCarried == 0 ? taken : oldestCarried - 1, store.mark(), store);
  }

  /**
   * Retries until the changes (if any) are durable and this server is known not fenced: nothing may leave the node
   * before. False if halted or closed meanwhile.
   */
  private boolean durableAndNotFenced(List<StateChange> changes) {
    long backoff = 50;
    while (!thread.isClosed() && !gate.halted()) {
      try {
        long start = System.nanoTime();
        if (!changes.isEmpty()) {
          store.write(changes);
        }
        fence.check(); // after the write: what a passing check follows, the next hosts load
        if (!changes.isEmpty()) {
          metrics.stateWritten(System.nanoTime() - start);
        }
        return true;
      } catch (WalFencedException e) {
        if (!thread.isClosed()) { // G-Store stopping here anyway: nothing to abort
          halt(e.getMessage());
          mustStop.accept("a recovery fenced its WAL: " + e.getMessage(), e);
        }
        return false;
      } catch (IOException e) {
        metrics.stateWriteFailed();
        LOG.warn("G-Store could not write protocol state; retrying in {} ms", backoff, e);
        try {
          TimeUnit.MILLISECONDS.sleep(backoff);
        } catch (InterruptedException ie) {
          return false;
        }
        backoff = Math.min(backoff * 2, 2_000);
      }
    }
    return false;
  }

  @Override
  public void close() {
    thread.close();
    failPendingBarriers();
  }
}
