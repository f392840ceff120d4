package org.gstore.coprocessor.server;

import java.util.concurrent.TimeUnit;

/** The runtime's retry pacing: doubling from 100 ms, at most 5 s. */
final class Backoff {
  static final long FIRST_MILLIS = 100;
  static final long MAX_MILLIS = 5_000;

  private Backoff() {}

  static long next(long millis) {
    return Math.min(millis * 2, MAX_MILLIS);
  }

  /** Sleeps; an interrupt ends the sleep and stays set for the caller's loop to see. */
  static void sleep(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
