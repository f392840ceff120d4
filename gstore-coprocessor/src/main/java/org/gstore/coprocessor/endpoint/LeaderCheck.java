package org.gstore.coprocessor.endpoint;

import java.io.IOException;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;

/** Checks that a call about a group reached the region that leads it, with its group state loaded. */
@FunctionalInterface
interface LeaderCheck {
  /**
   * The group named in a call.
   *
   * @throws IOException that HBase's client retries elsewhere ({@code NotServingRegionException}) or later
   *     ({@code RegionTooBusyException}) if the leader row is not served here
   */
  GroupId leadHere(String name, KeyProto leader) throws IOException;
}
