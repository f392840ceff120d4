package org.gstore.history;

/** What the checker finds, one kind at a time, and one instance of it as a person reads it. */
record Anomaly(Kind kind, boolean realtime, String explanation) {
  /** The kinds, named as Adya and Elle name them. */
  enum Kind {
    /** Write cycle: a cycle of write-write dependencies. */
    G0("G0"),
    /** Aborted read: a read of an append whose transaction failed (or that no transaction made). */
    G1A("G1a"),
    /** Intermediate read: a read of a state in the middle of another transaction's appends to that key. */
    G1B("G1b"),
    /** Circular information flow: a cycle of write-write and write-read dependencies. */
    G1C("G1c"),
    /** Read skew and the like: a cycle with exactly one anti-dependency. */
    G_SINGLE("G-single"),
    /** Write skew and the like: a cycle with two or more anti-dependencies. */
    G2("G2"),
    /** A transaction that does not see its own earlier appends. */
    INTERNAL("internal"),
    /** Two reads of a key of which neither is a prefix of the other: no order of appends explains both. */
    INCOMPATIBLE_ORDER("incompatible-order"),
    /** An acknowledged append missing from every read of its key, though reads began after it completed. */
    LOST("lost"),
    /** An element appearing twice in a read. */
    DUPLICATED("duplicated");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  @Override
  public String toString() {
    return kind.label + (realtime ? " (with real-time order)" : "") + ": " + explanation;
  }
}
