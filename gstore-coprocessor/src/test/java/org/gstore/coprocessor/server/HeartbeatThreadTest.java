package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The server's periodic tasks: every beat runs whatever the last one threw, and what follows a stop waits for it. */
@Timeout(30)
class HeartbeatThreadTest {
  @Test
  void aBeatThatThrowsDoesNotCancelTheNext() {
    AtomicInteger beats = new AtomicInteger();
    HeartbeatThread heartbeat = new HeartbeatThread(() -> {
      beats.incrementAndGet();
      throw new IllegalStateException("planted");
    }, 10, Thread::new);
    heartbeat.start();
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> beats.get() >= 3);
    heartbeat.stop();
  }

  /**
   * Issue 35, item 7: a server whose last beat did not end within 10 s skipped unregistering, so its claim, never
   * renewed, held every leader's threshold back until the server died.
   */
  @Test
  void whatFollowsAStopRunsOnceABeatStuckPastTheWaitEnds() throws Exception {
    CountDownLatch beating = new CountDownLatch(1);
    CountDownLatch stuck = new CountDownLatch(1);
    HeartbeatThread heartbeat = new HeartbeatThread(() -> {
      beating.countDown();
      while (stuck.getCount() > 0) { // a ZooKeeper call that does not heed interrupts
        try {
          stuck.await();
        } catch (InterruptedException ignored) {
          // keeps waiting, as a stuck call would
        }
      }
    }, 10, Thread::new, 100);
    heartbeat.start();
    beating.await();
    heartbeat.stop();

    AtomicBoolean unregistered = new AtomicBoolean();
    heartbeat.afterStopped(() -> unregistered.set(true));
    assertThat(unregistered).as("not while the beat may still publish a claim").isFalse();
    stuck.countDown();
    Awaitility.await().atMost(Duration.ofSeconds(5)).untilTrue(unregistered);
  }
}
