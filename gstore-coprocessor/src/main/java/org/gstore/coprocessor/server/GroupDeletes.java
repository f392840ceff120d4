package org.gstore.coprocessor.server;

import java.io.Closeable;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.gstore.common.protocol.ClientRequest;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Reply;
import org.gstore.coprocessor.txn.GroupHandover;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delete policy at a group's leader: a row is never released with a commit of its group missing from HBase.
 * A delete stops the group's commits first, then goes to the engine at once, so that its {@code DELETING} record is
 * written while the group's last commits are made durable in HBase; the group's releases ({@code D}) wait at the
 * {@link ReleaseGate} until they are. If that takes longer than the endpoint wait, it is retried every second in
 * the background, one chain of tries per group, and the delete finishes by itself.
 */
final class GroupDeletes implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupDeletes.class);
  /** How long a retry waits for a group's commits (a retry shares the thread with every other group's). */
  static final long RETRY_WAIT_MS = 100;
  /** A group whose releases stay held is logged at WARN at its first failed try and every this many after. */
  private static final int WARN_EVERY = 60;

  private final NodeId self;
  private final Commits commits;
  private final ReleaseGate releaseGate;
  private final Engine engine;
  private final Consumer<Datagram> send;
  private final long waitMillis;
  /** Times the retries of the deletes whose commits did not reach HBase within the endpoint wait. */
  private final ScheduledExecutorService retries;
  /** Runs them: a thread per group being tried at once, so one blocked in HBase holds no other. */
  private final ExecutorService tries;
  /** The groups whose releases are held and tried: one chain of tries each, however often a client calls. */
  private final Set<GroupRef> finishing = ConcurrentHashMap.newKeySet();
  /** Stops a group's commits ({@link GroupHandover#stopCommits}). */
  interface Commits {
    Optional<GroupHandover.Release> stopCommits(GroupId id) throws IOException;
  }

  /** Where a delete is decided ({@link ProtocolRuntime#submit}). */
  interface Engine {
    CompletableFuture<Reply> submit(ClientRequest request);
  }

  /** Lets effects out unless this server lets nothing out any more ({@link StepWriter#letOut}). */
  interface Exit {
    boolean letOut(Runnable effects);
  }

  /** Where held releases leave: not at all once the server's writer is halted. */
  private final Exit exit;

  /**
   * @param send where released datagrams go ({@link DatagramOutbox#send})
   * @param waitMillis how long a delete call waits for its group's commits to reach HBase
   */
  GroupDeletes(NodeId self, Commits commits, ReleaseGate releaseGate, Engine engine, Consumer<Datagram> send,
      Exit exit, long waitMillis, ThreadFactory threads) {
    this.exit = exit;
    this.self = self;
    this.commits = commits;
    this.releaseGate = releaseGate;
    this.engine = engine;
    this.send = send;
    this.waitMillis = waitMillis;
    this.retries = Executors.newSingleThreadScheduledExecutor(threads);
    this.tries = Executors.newCachedThreadPool(threads);
  }

  /**
   * Deletes a group; the future completes with the leader's answer (the group's rows may be released later). A
   * call for a group whose releases are already held (a client's retry) joins the retries under way.
   */
  CompletableFuture<Reply> delete(ClientRequest.Delete request) throws IOException {
    Optional<GroupHandover.Release> release = commits.stopCommits(request.group()).filter(this::startFinishing);
    try {
      return engine.submit(request);
    } finally {
      release.ifPresent(r -> finish(r, waitMillis, 0));
    }
  }

  /**
   * Holds the group's releases and starts its chain of tries, unless one is under way (a client's retry): under the
   * lock its chain's end takes too, so a call either finds the releases held or holds them itself.
   */
  private boolean startFinishing(GroupHandover.Release release) {
    synchronized (finishing) {
      if (!finishing.add(release.group())) {
        return false;
      }
      releaseGate.hold(release.group());
      return true;
    }
  }

  /**
   * Lets the group's releases go once its commits are durable in HBase; tried again every second until they are.
   * Only the delete call's own try waits the endpoint wait; each retry waits {@link #RETRY_WAIT_MS} per step, on
   * a thread of its own (a step may block in an HBase call for the client's whole retry time), so a group whose
   * commit stays out of HBase holds no other back.
   */
  private void finish(GroupHandover.Release release, long waitMs, int failures) {
    try {
      release.awaitDurable(waitMs);
      // under the writer's halt lock: a zombie's word may be stale, and the leader region's next host sends them
      boolean sent = exit.letOut(() -> {
        synchronized (finishing) {
          releaseGate.open(release.group(), self).forEach(send);
          finishing.remove(release.group());
        }
      });
      if (!sent) {
        finishing.remove(release.group()); // the gate keeps them: this server lets nothing out any more
        LOG.info("G-Store on a halted server keeps the releases of {} to the leader's next host", release.group());
      }
      return;
    } catch (IOException e) {
      if (failures % WARN_EVERY == 0) {
        LOG.warn("G-Store holds the releases of deleted group {} until its commits are in HBase ({}; {} tries so"
            + " far); retrying", release.group(), e.getMessage(), failures + 1);
      }
    } catch (RuntimeException e) { // NOPMD: neither the end of the retry thread nor a release held for good
      LOG.error("G-Store failed to finish the delete of {}; retrying", release.group(), e);
    }
    try {
      long retryWaitMs = Math.min(waitMillis, RETRY_WAIT_MS);
      retries.schedule(() -> tries.execute(() -> finish(release, retryWaitMs, failures + 1)), 1, TimeUnit.SECONDS);
    } catch (RejectedExecutionException closing) {
      // the WAL keeps the commits; the leader region's next host sends the releases, after replaying it if need be
      finishing.remove(release.group());
      LOG.debug("G-Store is closing: the releases of {} are left to the leader region's next host", release.group());
    }
  }

  /** Deletes held at the gate (their commits are not in HBase yet). */
  int held() {
    return releaseGate.heldGroups();
  }

  @Override
  public void close() {
    retries.shutdownNow();
    tries.shutdownNow();
  }
}
