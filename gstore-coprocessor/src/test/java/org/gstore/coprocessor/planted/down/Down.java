package org.gstore.coprocessor.planted.down;

import org.gstore.coprocessor.planted.up.Up;

/** {@code LayeringTest}'s planted cycle: this package and {@code planted.up} call each other. */
public final class Down {
  public static int callUp() {
    return Up.value();
  }
}
