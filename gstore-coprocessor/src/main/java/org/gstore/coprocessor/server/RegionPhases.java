package org.gstore.coprocessor.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where each G-Store region open on this server is in its life, by encoded region name (unique per region, daughters
 * of a split included). A pure state machine: every transition is atomic and happens only from the phase it names,
 * so a step that raced with a close (a load finishing after the region began to close) is refused, not applied.
 *
 * <pre>
 *   opened ─► LOADING ─fenced─► FENCED ─serving─► SERVING
 *                │                 │                 │
 *                │                 └──── closing ────┴─► CLOSING ─closed─► (gone)
 *                └─────────────────────── closing ─────────────────────────► (gone)
 * </pre>
 *
 * <ul>
 *   <li>{@code LOADING}: its rows' protocol state is being read; plain writes wait.
 *   <li>{@code FENCED}: its grouped rows are fenced, so writes are checked against the fence, and a replay can write
 *       through it; the logs of dead servers are being replayed and G-Store calls wait.
 *   <li>{@code SERVING}: the engine serves its rows.
 *   <li>{@code CLOSING}: it drains what was decided about its rows; writes are still checked (the shipper may have to
 *       write the commits of the groups it leads), and no step of its load or recovery may apply any more. A region
 *       that closes before its fence is loaded is forgotten at once: it never took a write, and never will here.
 * </ul>
 */
final class RegionPhases {
  enum Phase { LOADING, FENCED, SERVING, CLOSING }

  private final Map<String, Phase> phases = new ConcurrentHashMap<>();

  /** The region opened here: its load begins (a region reopened here begins anew). */
  void opened(String region) {
    phases.put(region, Phase.LOADING);
  }

  /** LOADING to FENCED; false if the region is in another phase (it began to close meanwhile). */
  boolean fenced(String region) {
    return move(region, Phase.LOADING, Phase.FENCED);
  }

  /** FENCED to SERVING; false if the region is in another phase. */
  boolean serving(String region) {
    return move(region, Phase.FENCED, Phase.SERVING);
  }

  /**
   * FENCED or SERVING to CLOSING, LOADING to forgotten; false if the region is closing already or unknown (a close
   * acts once).
   */
  boolean closing(String region) {
    boolean[] moved = new boolean[1];
    phases.computeIfPresent(region, (r, p) -> {
      moved[0] = p != Phase.CLOSING;
      return p == Phase.LOADING ? null : Phase.CLOSING;
    });
    return moved[0];
  }

  /** The region's close finished: it is forgotten (if it is still closing). */
  void closed(String region) {
    phases.remove(region, Phase.CLOSING);
  }

  /** Whether the region is open and not closing. */
  boolean isOpen(String region) {
    Phase p = phases.get(region);
    return p != null && p != Phase.CLOSING;
  }

  /** Whether plain writes to the region are checked against its fence (not before it is loaded). */
  boolean takesWrites(String region) {
    Phase p = phases.get(region);
    return p == Phase.FENCED || p == Phase.SERVING || p == Phase.CLOSING;
  }

  private boolean move(String region, Phase from, Phase to) {
    return phases.replace(region, from, to);
  }
}
