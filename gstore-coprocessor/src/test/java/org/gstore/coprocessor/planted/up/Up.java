package org.gstore.coprocessor.planted.up;

import org.gstore.coprocessor.planted.down.Down;

/** {@code LayeringTest}'s planted cycle: this package and {@code planted.down} call each other. */
public final class Up {
  public static int callDown() {
    return Down.callUp() + 1;
  }

  public static int value() {
    return 1;
  }
}
