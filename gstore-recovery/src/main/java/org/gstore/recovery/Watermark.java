package org.gstore.recovery;

import java.util.TreeSet;

/**
 * The number through which every number has been marked (-1: none), when numbers are marked out of order: a number
 * marked early waits above the watermark until the gap below it closes. The shipper uses one per WAL stream for
 * the records it has been handed: commit threads whose records share a WAL batch hand them over in any order, and
 * the WAL must keep a record until the shipper has seen it.
 */
public final class Watermark {
  private long through = -1;
  private final TreeSet<Long> ahead = new TreeSet<>();

  public void mark(long n) {
    if (n <= through) {
      return;
    }
    ahead.add(n);
    while (!ahead.isEmpty() && ahead.first() == through + 1) {
      through = ahead.pollFirst();
    }
  }

  public long through() {
    return through;
  }
}
