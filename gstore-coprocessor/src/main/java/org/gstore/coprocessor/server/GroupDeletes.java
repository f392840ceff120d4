package org.gstore.coprocessor.server;

import java.io.Closeable;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.gstore.common.protocol.ClientRequest;
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
 * the background, and the delete finishes by itself.
 */
final class GroupDeletes implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(GroupDeletes.class);

  private final NodeId self;
  private final GroupHandover handover;
  private final ReleaseGate releaseGate;
  private final ProtocolRuntime runtime;
  private final DatagramOutbox outbox;
  /** Retries the deletes whose commits did not reach HBase within the endpoint wait. */
  private final ScheduledExecutorService retries;
  /** Lets effects out unless this server lets nothing out any more ({@link StepWriter#letOut}). */
  interface Exit {
    boolean letOut(Runnable effects);
  }

  /** Where held releases leave: not at all once the server's writer is halted. */
  private final Exit exit;

  GroupDeletes(NodeId self, GroupHandover handover, ReleaseGate releaseGate, ProtocolRuntime runtime,
      DatagramOutbox outbox, Exit exit, ThreadFactory threads) {
    this.exit = exit;
    this.self = self;
    this.handover = handover;
    this.releaseGate = releaseGate;
    this.runtime = runtime;
    this.outbox = outbox;
    this.retries = Executors.newSingleThreadScheduledExecutor(threads);
  }

  /** Deletes a group; the future completes with the leader's answer (the group's rows may be released later). */
  CompletableFuture<Reply> delete(ClientRequest.Delete request) throws IOException {
    Optional<GroupHandover.Release> release = handover.stopCommits(request.group());
    release.ifPresent(r -> releaseGate.hold(r.group()));
    CompletableFuture<Reply> reply = runtime.submit(request);
    release.ifPresent(this::finish);
    return reply;
  }

  /** Lets the group's releases go once its commits are durable in HBase; retried every second until they are. */
  private void finish(GroupHandover.Release release) {
    try {
      release.awaitDurable();
      // under the writer's halt lock: a zombie's word may be stale, and the leader region's next host sends them
      if (!exit.letOut(() -> releaseGate.open(release.group(), self).forEach(outbox::send))) {
        LOG.info("G-Store on a halted server keeps the releases of {} to the leader's next host", release.group());
      }
      return;
    } catch (IOException e) {
      LOG.warn("G-Store holds the releases of deleted group {} until its commits are in HBase ({}); retrying",
          release.group(), e.getMessage());
    } catch (RuntimeException e) { // NOPMD: neither the end of the retry thread nor a release held for good
      LOG.error("G-Store failed to finish the delete of {}; retrying", release.group(), e);
    }
    try {
      retries.schedule(() -> finish(release), 1, TimeUnit.SECONDS);
    } catch (RejectedExecutionException closing) {
      // the WAL keeps the commits; the leader region's next host sends the releases, after replaying it if need be
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
  }
}
