package org.gstore.recovery;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** The claim store as ZooKeeper holds it, in memory: what every test server reads and writes. */
final class InMemoryClaims implements ClaimStore {
  final Set<String> live = new HashSet<>();
  private final Map<String, Flushed> flushed = new HashMap<>();
  private final Map<String, Map<String, Long>> claims = new HashMap<>();

  @Override
  public synchronized Set<String> liveServers() {
    return new HashSet<>(live);
  }

  @Override
  public synchronized void register(String server) {
    claims.put(server, Map.of());
  }

  @Override
  public synchronized void unregister(String server) {
    claims.remove(server);
    flushed.remove(server);
  }

  @Override
  public synchronized void publishFlushed(String server, Flushed f) {
    flushed.put(server, f);
  }

  @Override
  public synchronized Map<String, Flushed> flushed() {
    return new HashMap<>(flushed);
  }

  @Override
  public synchronized void publishClaim(String server, Map<String, Long> claim) {
    claims.put(server, Map.copyOf(claim));
  }

  @Override
  public synchronized Map<String, Map<String, Long>> claims() {
    return new HashMap<>(claims);
  }
}
