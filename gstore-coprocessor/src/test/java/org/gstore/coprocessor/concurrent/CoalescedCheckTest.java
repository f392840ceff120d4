package org.gstore.coprocessor.concurrent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class CoalescedCheckTest {
  /**
   * The promise: a caller's answer comes from a run that started after it asked. A "fence" goes up at some moment;
   * every caller that asked after it must be refused, however the runs are shared.
   */
  @Test
  void everyCallerIsAnsweredByARunThatStartedAfterItAsked() throws Exception {
    AtomicBoolean fenced = new AtomicBoolean();
    AtomicLong fencedAt = new AtomicLong(Long.MAX_VALUE);
    CoalescedCheck check = new CoalescedCheck(() -> {
      boolean refused = fenced.get(); // what a NameNode lookup sees when it is made
      sleepQuietly(2);
      if (refused) {
        throw new IOException("fenced");
      }
    });
    ExecutorService pool = Executors.newFixedThreadPool(16);
    List<Future<?>> callers = new ArrayList<>();
    AtomicInteger passedAfterFence = new AtomicInteger();
    AtomicInteger askedAfterFence = new AtomicInteger();
    AtomicInteger calls = new AtomicInteger();
    for (int i = 0; i < 16; i++) {
      callers.add(pool.submit(() -> {
        while (System.nanoTime() - fencedAt.get() < 300_000_000L || fencedAt.get() == Long.MAX_VALUE) {
          long asked = System.nanoTime();
          boolean afterFence = asked > fencedAt.get();
          calls.incrementAndGet();
          if (afterFence) {
            askedAfterFence.incrementAndGet();
          }
          try {
            check.check();
            if (afterFence) {
              passedAfterFence.incrementAndGet();
            }
          } catch (IOException e) {
            // refused: also right for a call made just before the fence, if its run started after it
          }
        }
        return null;
      }));
    }
    Thread.sleep(150);
    fenced.set(true);
    fencedAt.set(System.nanoTime());
    for (Future<?> f : callers) {
      f.get();
    }
    pool.shutdown();
    assertThat(askedAfterFence.get()).as("calls made after the fence went up").isGreaterThan(100);
    assertThat(passedAfterFence.get()).as("calls made after the fence went up and let through").isZero();
    assertThat(check.runs()).as("runs shared: far fewer than one per call").isLessThan(calls.get() / 2);
  }

  @Test
  void callersWaitingDuringARunShareTheNextOneAndItsFailure() throws Exception {
    CountDownLatch firstRunStarted = new CountDownLatch(1);
    CountDownLatch releaseFirstRun = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    CoalescedCheck check = new CoalescedCheck(() -> {
      if (runs.incrementAndGet() == 1) {
        firstRunStarted.countDown();
        await(releaseFirstRun);
        return;
      }
      throw new IOException("fenced since");
    });
    ExecutorService pool = Executors.newFixedThreadPool(4);
    Future<?> first = pool.submit(() -> {
      check.check();
      return null;
    });
    assertThat(firstRunStarted.await(10, TimeUnit.SECONDS)).isTrue();
    List<Future<?>> later = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      later.add(pool.submit(() -> {
        check.check();
        return null;
      }));
    }
    Thread.sleep(100); // they asked while the first run was in progress: its pass is not theirs
    releaseFirstRun.countDown();
    first.get();
    for (Future<?> f : later) {
      assertThatThrownBy(f::get).hasRootCauseMessage("fenced since");
    }
    pool.shutdown();
    assertThat(runs.get()).as("one run for the three that waited").isEqualTo(2);
  }

  /** An Error in the run (a thread that could not be created, say) is no pass for those waiting on it. */
  @Test
  void anErrorInTheRunFailsEveryCallerItAnswers() throws Exception {
    CountDownLatch firstRunStarted = new CountDownLatch(1);
    CountDownLatch releaseFirstRun = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    CoalescedCheck check = new CoalescedCheck(() -> {
      if (runs.incrementAndGet() == 1) {
        firstRunStarted.countDown();
        await(releaseFirstRun);
        return;
      }
      throw new OutOfMemoryError("planted: unable to create native thread");
    });
    ExecutorService pool = Executors.newFixedThreadPool(3);
    Future<?> first = pool.submit(() -> {
      check.check();
      return null;
    });
    assertThat(firstRunStarted.await(10, TimeUnit.SECONDS)).isTrue();
    List<Future<?>> later = new ArrayList<>();
    for (int i = 0; i < 2; i++) { // both asked during run 1: run 2, which throws, answers them
      later.add(pool.submit(() -> {
        check.check();
        return null;
      }));
    }
    Thread.sleep(100);
    releaseFirstRun.countDown();
    first.get();
    for (Future<?> f : later) {
      assertThatThrownBy(f::get).as("the runner gets the Error, the other an IOException caused by it")
          .hasRootCauseInstanceOf(OutOfMemoryError.class);
    }
    pool.shutdown();
    assertThat(runs.get()).isEqualTo(2);
    assertThatThrownBy(check::check).as("not wedged: the next caller runs it again")
        .isInstanceOf(OutOfMemoryError.class);
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
