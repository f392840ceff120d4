package org.gstore.recovery.hbase;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.gstore.common.protocol.Key;
import org.gstore.recovery.ClaimStore;
import org.gstore.recovery.CommitSink;
import org.gstore.recovery.LogId;
import org.gstore.recovery.OutageStep;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays the G-Store write-ahead logs of dead region servers into HBase. Every region server keeps its log in
 * {@code <root>/<server name>}; a pass looks for logs of servers HBase no longer counts as alive and, for each,
 * under that server's recovery lock:
 * <pre>
 *   1. fence    rename &lt;server&gt; to &lt;server&gt;.recovering, then recover the HDFS lease of each file:
 *               a zombie of the server can neither finish a write (the lease and blocks are taken over) nor
 *               start a new file (its directory is gone), so it acknowledges nothing this pass does not read
 *   2. protocol its logged protocol state, to the state tables ({@link ProtocolReplay}), marked when done:
 *               regions load protocol state only after this step ({@link #replayProtocolState})
 *   3. replay   every commit of every file, in order, written with its commit timestamp and its group's token
 *               (idempotent: replaying a commit that was already shipped changes nothing)
 *   4. done     rename to &lt;server&gt;.recovered-&lt;time&gt;, kept gstore.recovery.retain.ms for an operator
 *               to read ({@code gstore wal}), then deleted with the server's thresholds in ZooKeeper
 * </pre>
 * This class finds the logs to replay, takes their locks and decides who waits for which; one log's steps are
 * {@link LogReplay}'s. A server that dies mid-pass loses its lock with its ZooKeeper session; the next pass, anywhere, starts again
 * from step 1 (or from the {@code .recovering} directory).
 *
 * <p>A write that fencing refuses is skipped: its row is no longer in the commit's group, which happens only once
 * the group was deleted, and a delete waits until the group's commits are in HBase.
 *
 * <p>A replayed commit's outcome is recorded with it ({@link OutcomeTable}, by the {@link CommitApplier}), so that
 * the new leader of a group answers a commit retried across the crash with its true outcome.
 */
public final class WalRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(WalRecovery.class);
  /** Suffix of a dead server's WAL directory while it is fenced and replayed. */
  public static final String RECOVERING = ".recovering";
  /** Suffix (followed by the time) of a dead server's replayed WAL directory, kept for the retention. */
  public static final String RECOVERED = ".recovered-";
  /** How long an attempt tries one log by default (see {@link #recoverDeadServers(Predicate)}). */
  public static final long DEFAULT_ATTEMPT_MILLIS = 60_000;
  /**
   * How long a region waits for a log's replay at most before it decides, from the log itself, whether it must
   * wait for it; a replay of a few hundred commits takes well under it.
   */
  public static final long REGION_WAIT_MILLIS = 2_000;

  /** What one attempt at a log's commits did; its counts go to the first pass that learns of it. */
  private record Replayed(boolean byThisServer, long written, long skipped, AtomicBoolean counted) {
    static Replayed none() {
      return new Replayed(false, 0, 0, new AtomicBoolean(true));
    }
  }

  /** What one pass did. */
  public record Pass(int serversRecovered, long commitsReplayed, long commitsSkipped, long millis) {}

  private final FileSystem fs;
  private final Path root;
  private final String selfLog;
  private final String selfServer;
  private final RecoveryZnodes coordination;
  private final ProtocolReplay protocol;
  private final LogReplay replay;
  private final RecoveredLogs recovered;
  /** How long one attempt tries one log (its lock, its leases, its writes) before it fails. */
  private final long attemptMillis;
  /** The replays of dead logs' commits, in the background: a failed one is tried again an attempt time later. */
  private final LogAttempts<Replayed> replays;
  /** The replays of dead logs' protocol state, likewise. */
  private final LogAttempts<Boolean> protocolReplays;
  /** The fences of logs whose servers just left, ahead of any region's need ({@link #fenceDeadLogs}). */
  private final LogAttempts<Boolean> fences;
  private final LogFencer fencer;
  private final FencedLogs fencedLogs;
  private volatile boolean closed;

  /**
   * @param root the directory holding every G-Store instance's log directory, named by its {@link LogId}
   * @param selfLog this instance's log: never recovered here. The logs of earlier instances on this same server
   *     (G-Store stopped here and started again) are, like dead servers' logs
   */
  public WalRecovery(FileSystem fs, Path root, String selfLog, RecoveryZnodes znodes, CommitSink applier,
      ProtocolStateSink stateTables, long retainMillis) {
    this(fs, root, selfLog, znodes, applier, stateTables, retainMillis, DEFAULT_ATTEMPT_MILLIS);
  }

  /** @param attemptMillis how long an attempt tries one log before it fails (it is tried again as long later) */
  public WalRecovery(FileSystem fs, Path root, String selfLog, RecoveryZnodes znodes, CommitSink applier,
      ProtocolStateSink stateTables, long retainMillis, long attemptMillis) {
    this.attemptMillis = attemptMillis;
    this.replays = new LogAttempts<>("replay", attemptMillis);
    this.protocolReplays = new LogAttempts<>("protocol replay", attemptMillis);
    this.fences = new LogAttempts<>("fence", attemptMillis);
    this.fencedLogs = new FencedLogs(fs, root);
    this.fs = fs;
    this.root = root;
    this.selfLog = selfLog;
    this.selfServer = LogId.serverOf(selfLog);
    this.coordination = znodes;
    this.fencer = new LogFencer(fs, root, attemptMillis, this::pause);
    this.protocol = new ProtocolReplay(fs, root, stateTables, znodes, fencer, attemptMillis, this::pause);
    this.replay = new LogReplay(fs, root, selfServer, znodes, new ReplayWriter(applier, attemptMillis, this::pause),
        protocol, fencer, fencedLogs);
    this.recovered = new RecoveredLogs(fs, root, znodes, retainMillis);
  }

  /** Replays every log a pass can reach, whatever groups they hold, waiting for each attempt (tools and tests). */
  public Pass recoverDeadServers() throws IOException {
    return recoverDeadServers(leader -> true);
  }

  /** {@link #recoverDeadServers(Predicate, long)}, waiting for each log's attempt to end (tools and tests). */
  public Pass recoverDeadServers(Predicate<Key> leadsHere) throws IOException {
    return recoverDeadServers(leadsHere, Long.MAX_VALUE);
  }

  /**
   * Replays the log of every dead server, and of every earlier G-Store instance on this server, each in the
   * background ({@link LogAttempts}). Returns once every log that may hold a group led from {@code leadsHere} is
   * replayed (here or by another server); throws, naming them, if some are not yet. A log that cannot be replayed
   * now (a table it writes is disabled, another server holds its lock, HDFS stalls) holds back only the regions
   * whose groups it holds, which is read from the log itself once it is fenced ({@link FencedLogs}).
   *
   * @param waitMillis how long to wait for a log's attempt before deciding from the log whether to wait for it: a
   *     region opening waits {@link #REGION_WAIT_MILLIS}, so one stuck log never holds unrelated regions opening
   *     one after another; with a bounded wait, a log known from its fenced contents not to concern the caller is
   *     not waited for at all (its attempt goes on in the background)
   */
  public Pass recoverDeadServers(Predicate<Key> leadsHere, long waitMillis) throws IOException {
    long start = System.currentTimeMillis();
    int servers = 0;
    long[] counts = new long[2];
    List<String> notReplayed = new ArrayList<>();
    if (fs.exists(root)) {
      Set<String> live = coordination.liveServers();
      for (String log : deadLogs(live)) {
        if (waitMillis != Long.MAX_VALUE && fencedLogs.holdsNoCommitsOf(log, leadsHere)) {
          replays.startUnlessRecent(log, () -> recover(log)); // a region opening needs no wait for it
          continue;
        }
        try {
          Replayed r = replays.await(log, () -> recover(log), waitMillis);
          if (r.counted().compareAndSet(false, true)) {
            servers += r.byThisServer() ? 1 : 0;
            counts[0] += r.written();
            counts[1] += r.skipped();
          }
          fencedLogs.forget(log);
        } catch (InterruptedIOException e) {
          throw e;
        } catch (IOException e) {
          if (fencedLogs.holdsNoCommitsOf(log, leadsHere)) {
            LOG.warn("G-Store has not replayed the WAL {} yet ({}); it holds no group led from the region"
                + " waiting, which serves meanwhile", log, e.getMessage());
          } else if (e instanceof WalFiles.CorruptWalException corrupt) {
            throw corrupt; // an operator must act: say so as it is
          } else {
            notReplayed.add(log + " (" + e.getMessage() + ")");
          }
        }
      }
      recovered.forgetOld(live);
    }
    if (!notReplayed.isEmpty()) {
      throw new IOException("G-Store cannot replay yet the WAL of " + String.join(", ", notReplayed)
          + "; the groups it may hold wait for it");
    }
    return new Pass(servers, counts[0], counts[1], System.currentTimeMillis() - start);
  }

  /**
   * Fences, in the background, every log a pass would replay that is not fenced yet, and returns at once. Called when
   * a server leaves ZooKeeper's live set: the HDFS lease recovery of its log (seconds: the DataNodes' next heartbeat)
   * then runs beside HBase's own WAL split, not after it, when the server's regions open and wait for the replay; and
   * a region opening learns at once from the fenced log whether it must wait for it ({@link FencedLogs}). Fencing
   * is the replay's first step and safe at any time once the server is no longer live (a zombie is what it stops);
   * a log whose lock another server holds is left to it.
   *
   * @return how many dead logs were not fenced yet when it looked (their fences may be running)
   */
  public int fenceDeadLogs() throws IOException {
    if (!fs.exists(root)) {
      return 0;
    }
    int unfenced = 0;
    for (String log : deadLogs(coordination.liveServers())) {
      if (!fs.exists(new Path(root, log + RECOVERING))) {
        fences.startUnlessRecent(log, () -> fenceUnderLock(log));
        unfenced++;
      }
    }
    return unfenced;
  }

  private boolean fenceUnderLock(String log) throws IOException {
    if (!coordination.tryLock(log)) {
      return false; // another server recovers it
    }
    OutageStep step = OutageStep.start(OutageStep.Kind.WAL_FENCE, selfServer, LogId.serverOf(log), log);
    try {
      List<Path> files = fencer.fence(log);
      step.end(files == null ? "nothing" : "files=" + files.size());
      return files != null;
    } catch (IOException | RuntimeException e) {
      step.failed(e);
      throw e;
    } finally {
      coordination.unlock(log);
    }
  }

  /** The logs a pass replays: of servers not live, and of earlier G-Store instances here, not yet replayed. */
  private List<String> deadLogs(Set<String> live) throws IOException {
    Map<String, ClaimStore.Flushed> current = coordination.flushed();
    List<String> dead = new ArrayList<>();
    for (FileStatus dir : fs.listStatus(root)) {
      String name = dir.getPath().getName();
      String log = RecoveredLogs.logOf(name);
      if (dir.isDirectory() && !name.contains(RECOVERED) && !log.equals(selfLog)
          && !LogId.mayStillBeWritten(log, selfServer, live, current)) {
        dead.add(log);
      }
    }
    return dead;
  }

  /**
   * Writes the logged protocol state of every log that may hold some (dead servers', and earlier G-Store instances'
   * on this server) to the state tables, fencing each log first: what a region here then loads from the tables is
   * all its rows' durable protocol state. A log already so marked, replayed or closed cleanly costs a lookup. A log
   * whose lock another pass holds is waited for (at most the attempt time): that pass writes its protocol state
   * first, before its commits. Each log's attempt runs in the background ({@link LogAttempts}), apart from its
   * commits' replay: a region must not wait here for another region's commit replay, which may itself wait for this
   * region to load.
   *
   * @param waitMillis how long to wait for a log's attempt before deciding from the log whether to wait for it (a
   *     region loading waits {@link #REGION_WAIT_MILLIS}); with a bounded wait, a log known not to concern the keys
   *     loading is not waited for at all
   * @throws IOException naming the logs whose protocol state is not in the tables yet (the caller retries)
   */
  public void replayProtocolState(Predicate<Key> loading, long waitMillis) throws IOException {
    replayProtocolState(log -> true, loading, waitMillis);
  }

  /**
   * {@link #replayProtocolState(Predicate, long)} for the logs of earlier G-Store instances on this very server, which
   * alone can hold uid reservations of this node (a node is a region server process): before the engine starts.
   */
  public void replayOwnProtocolState() throws IOException {
    replayProtocolState(log -> LogId.serverOf(log).equals(selfServer), k -> true, Long.MAX_VALUE);
  }

  /**
   * @param logs which logs to look at
   * @param loading the keys about to be loaded: a log that cannot be replayed yet holds them back only if it may
   *     hold protocol state of one of them (it is not fenced, not readable to its end, or one of its records
   *     names one); then it throws
   */
  private void replayProtocolState(Predicate<String> logs, Predicate<Key> loading, long waitMillis)
      throws IOException {
    if (!fs.exists(root)) {
      return;
    }
    List<String> notReplayed = new ArrayList<>();
    for (String log : deadLogs(coordination.liveServers())) {
      if (!logs.test(log) || protocol.inTables(log)) {
        continue;
      }
      LogAttempts.Work<Boolean> work = () -> {
        protocol.ensureInTables(log);
        return true;
      };
      if (waitMillis != Long.MAX_VALUE && fencedLogs.holdsNoProtocolStateOf(log, loading)) {
        protocolReplays.startUnlessRecent(log, work); // a region loading needs no wait for it
        continue;
      }
      try {
        protocolReplays.await(log, work, waitMillis);
      } catch (InterruptedIOException e) {
        throw e;
      } catch (IOException e) {
        if (fencedLogs.holdsNoProtocolStateOf(log, loading)) {
          LOG.warn("G-Store cannot write the logged protocol state of {} yet ({}); none of it is of the rows"
              + " loading, which go on", log, e.getMessage());
        } else {
          notReplayed.add(log + " (" + e.getMessage() + ")");
        }
      }
    }
    if (!notReplayed.isEmpty()) {
      throw new IOException("G-Store cannot write the logged protocol state of " + String.join(", ", notReplayed)
          + " to its tables yet; regions wait for it before they load");
    }
  }

  public void close() {
    closed = true;
    replays.close();
    protocolReplays.close();
    fences.close();
  }

  /**
   * Recovers one log under its lock, or waits (at most the attempt time) for whoever holds it: what this attempt
   * replayed, if anything.
   */
  private Replayed recover(String server) throws IOException {
    long deadline = System.currentTimeMillis() + attemptMillis;
    while (fs.exists(new Path(root, server)) || fs.exists(new Path(root, server + RECOVERING))) {
      if (coordination.tryLock(server)) {
        try {
          LogReplay.Counts counts = replay.replay(server);
          return counts == null ? Replayed.none()
              : new Replayed(true, counts.written(), counts.skipped(), new AtomicBoolean());
        } finally {
          coordination.unlock(server);
        }
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("another region server has been replaying it for over " + attemptMillis + " ms");
      }
      pause(200);
    }
    return Replayed.none();
  }

  private void pause(long millis) throws IOException {
    if (closed) {
      throw new InterruptedIOException("G-Store is stopping; recovery resumes on the next server");
    }
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted recovering");
    }
  }
}
