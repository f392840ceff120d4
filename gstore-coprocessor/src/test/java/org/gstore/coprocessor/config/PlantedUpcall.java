package org.gstore.coprocessor.config;

import org.gstore.coprocessor.server.HostedRegions;

/** {@code LayeringTest}'s planted layer violation: a leaf that reaches up into the server. */
public final class PlantedUpcall {
  public static int fencedRows(HostedRegions hosted) {
    return hosted.ownerOf(null) == null ? 0 : 1;
  }
}
