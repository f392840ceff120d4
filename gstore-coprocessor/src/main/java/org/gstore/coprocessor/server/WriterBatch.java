package org.gstore.coprocessor.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.Reply;
import org.gstore.common.protocol.Step;

/**
 * What the {@link StepWriter} took from its queue at once, in the order it was queued: the engine's steps, barriers
 * (futures a closing region waits on) and the writer's own wake-ups for its carried changes. It answers what the
 * writer must decide about the batch: what it writes, what it lets out (and so whether it needs a fence check of
 * its own), and which of its items may leave before its write.
 *
 * <p>A view of the writer thread's list, not a copy: items released early ({@link #releaseAhead}) leave that list,
 * so a failure of the batch's writes reaches only the items still in it.
 */
final class WriterBatch {
  /** Queued to make the writer write its carried changes when no step comes. */
  static final Object WRITE_CARRIED = new Object();

  private final List<Object> items;

  WriterBatch(List<Object> items) {
    this.items = items;
  }

  /** The batch's steps, in order. */
  List<Step> steps() {
    List<Step> steps = new ArrayList<>();
    for (Object o : items) {
      if (o instanceof Step s) {
        steps.add(s);
      }
    }
    return steps;
  }

  /** Whether it holds the writer's wake-up for its carried changes. */
  boolean wakesUp() {
    return items.contains(WRITE_CARRIED);
  }

  /** Whether carried changes must be written with it rather than wait longer: a wake-up or a barrier is in it. */
  boolean flushesCarried() {
    return wakesUp() || items.stream().anyMatch(o -> o instanceof CompletableFuture);
  }

  /**
   * Whether releasing it lets anything out: a datagram, an answer, a barrier. Only then does it need a fence check
   * of its own; a batch of nothing but the writer's wake-up for its carried changes (every deferred write alone)
   * would otherwise pay a NameNode call before the one that follows its write.
   */
  boolean letsSomethingOut() {
    for (Object o : items) {
      if (o instanceof Step s ? !s.datagrams().isEmpty() || !s.replies().isEmpty() : o != WRITE_CARRIED) {
        return true;
      }
    }
    return false;
  }

  /**
   * The items at the batch's head with no change to wait for (deferred ones aside): steps decided before any step
   * that writes, and wake-ups. They can only depend on earlier batches, which are durable, so they need not wait
   * for the changes of the steps decided after them. Traced under the demo's load, a client's CREATED (a step with
   * only a deferred change) waited in the queue behind another group's 30-40 ms write.
   */
  WriterBatch headWithNothingToWrite() {
    int head = 0;
    while (head < items.size()
        && (items.get(head) == WRITE_CARRIED || items.get(head) instanceof Step s && s.changes().isEmpty())) {
      head++;
    }
    return new WriterBatch(items.subList(0, head));
  }

  /**
   * Releases this head ({@link #headWithNothingToWrite}) through {@code gate} and, if it left, takes it out of its
   * batch, so that a failure of the batch's writes does not touch it. Returns whether it left.
   */
  boolean releaseAhead(HaltGate gate, Release release) {
    if (!gate.letOut(() -> release(release))) {
      return false;
    }
    items.clear(); // a view of the batch's head: they leave the batch
    return true;
  }

  /** Sends the steps' datagrams and answers and passes the barriers, in order. */
  void release(Release release) {
    for (Object o : items) {
      if (o instanceof Step s) {
        s.datagrams().forEach(release.send());
        s.replies().forEach(release.answer());
      } else if (o != WRITE_CARRIED) {
        release.pass().accept(barrier(o));
      }
    }
  }

  /**
   * The batch could not be written: each waiting client is told {@code e} under its request id, each barrier is
   * failed with {@code why}.
   */
  void fail(Throwable e, BiConsumer<String, Throwable> failRequest,
      BiConsumer<CompletableFuture<Void>, String> failBarrier) {
    for (Object o : items) {
      if (o instanceof Step s) {
        s.replies().forEach(r -> failRequest.accept(r.requestId(), e));
      } else if (o != WRITE_CARRIED) {
        failBarrier.accept(barrier(o), "a protocol state write failed: " + e);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static CompletableFuture<Void> barrier(Object o) {
    return (CompletableFuture<Void>) o;
  }

  /** Where a batch's effects go: datagrams sent, answers to clients, barriers passed. */
  record Release(Consumer<Datagram> send, Consumer<Reply> answer, Consumer<CompletableFuture<Void>> pass) {}
}
