package org.gstore.bench;

import java.io.IOException;
import java.util.List;
import java.util.Random;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupCreationException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;

/** Forming a benchmark group: best effort, and again with other players when even its leader row is taken. */
final class Groups {
  private Groups() {}

  static KeyGroup form(GStoreClient client, List<byte[]> players, Random random, int rows, boolean contiguous)
      throws IOException {
    List<byte[]> wanted = players;
    while (true) {
      try {
        return client.createGroup(GroupSpec.builder().members(Players.TABLE, wanted).bestEffort().build());
      } catch (GroupCreationException e) {
        wanted = Players.pick(random, players.size(), rows, contiguous); // the chosen leader is in another game
      }
    }
  }
}
