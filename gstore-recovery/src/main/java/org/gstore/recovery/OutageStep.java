package org.gstore.recovery;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One step that G-Store takes or waits for on a fault's path: a closing region's drain, a region's open until it
 * serves, its wait for a dead server's WAL, that WAL's fencing and replay, commits shipped again. Each logs one line
 * at INFO when it starts and one when it ends, with its milliseconds, so that a reader of a region server's log, and
 * {@code gstore chaos} (which reads them all), can tell where the seconds of a stall went:
 *
 * <pre>
 *   G-Store step region-drain start at=localhost,16020,1 about=- on=bank,,1.abc
 *   G-Store step region-drain end ms=1234 ended=1796652071000 outcome=ok at=localhost,16020,1 about=- on=bank,,1.abc
 * </pre>
 *
 * {@code at} is the region server taking the step, {@code about} the server the fault hit when the step is known to
 * be about one (a dead server whose WAL is replayed), {@code on} the region or log. Thread-safe; a step ends once.
 */
public final class OutageStep {
  private static final Logger LOG = LoggerFactory.getLogger(OutageStep.class);
  /** What every step line begins with, after the log's own prefix. */
  public static final String MARK = "G-Store step ";
  private static final Pattern END = Pattern.compile(Pattern.quote(MARK)
      + "(\\S+) end ms=(\\d+) ended=(\\d+) outcome=(\\S+) at=(\\S+) about=(\\S+) on=(\\S+)");

  /** The steps, by the name their lines carry. */
  public enum Kind {
    /** A closing region waits until what was decided about its rows is durable and out. */
    REGION_DRAIN,
    /** A G-Store region opened: until its rows serve (state loaded, dead servers' WALs replayed). */
    REGION_OPEN,
    /** A region opening waits for dead servers' WALs that may hold its groups' commits. */
    REPLAY_WAIT,
    /** A departed server's WAL fenced (renamed, its HDFS leases recovered) as soon as it left, before any replay. */
    WAL_FENCE,
    /** A dead server's WAL fenced (its HDFS leases recovered) and its commits written to HBase again. */
    WAL_REPLAY,
    /** A leader ships again the commits a server that died had not persisted (logged when decided: 0 ms). */
    SHIP_AGAIN;

    /** The name in the log: {@code region-drain}. */
    public String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static Optional<Kind> ofLabel(String label) {
      for (Kind k : values()) {
        if (k.label().equals(label)) {
          return Optional.of(k);
        }
      }
      return Optional.empty();
    }
  }

  /** A step's end line, read back: when it ended (epoch milliseconds) and how long it took. */
  public record Ended(Kind kind, long millis, long endedAt, String outcome, String at, String about, String on) {
    public long startedAt() {
      return endedAt - millis;
    }
  }

  private final Kind kind;
  private final String at;
  private final String about;
  private final String on;
  private final long started = System.currentTimeMillis();
  private boolean ended;

  private OutageStep(Kind kind, String at, String about, String on) {
    this.kind = kind;
    this.at = token(at);
    this.about = token(about);
    this.on = token(on);
  }

  /** Starts a step and logs it; {@code about} may be null (no faulted server known). */
  public static OutageStep start(Kind kind, String at, String about, String on) {
    OutageStep step = new OutageStep(kind, at, about, on);
    LOG.info("{}{} start at={} about={} on={}", MARK, kind.label(), step.at, step.about, step.on);
    return step;
  }

  /** A step with nothing to wait for, such as a decision: logged as ended at once, with {@code outcome}. */
  public static void instant(Kind kind, String at, String about, String on, String outcome) {
    new OutageStep(kind, at, about, on).end(outcome);
  }

  /** Ends the step as done. */
  public void ok() {
    end("ok");
  }

  /** Ends the step as failed, with what failed (one word of the log line: spaces become underscores). */
  public void failed(Throwable cause) {
    end("failed:" + cause.getClass().getSimpleName());
  }

  /** Ends the step with {@code outcome}; a step already ended is not logged again. */
  public synchronized void end(String outcome) {
    if (ended) {
      return;
    }
    ended = true;
    long now = System.currentTimeMillis();
    if (LOG.isInfoEnabled()) {
      LOG.info(endLine(kind, now - started, now, outcome, at, about, on));
    }
  }

  /** The line a step's end logs, which {@link #parse} reads back. */
  static String endLine(Kind kind, long millis, long endedAt, String outcome, String at, String about, String on) {
    return MARK + kind.label() + " end ms=" + millis + " ended=" + endedAt + " outcome=" + token(outcome) + " at="
        + token(at) + " about=" + token(about) + " on=" + token(on);
  }

  /** The step a log line ends, if it is one's end line. */
  public static Optional<Ended> parse(String line) {
    int mark = line.indexOf(MARK);
    if (mark < 0) {
      return Optional.empty();
    }
    Matcher m = END.matcher(line);
    if (!m.find(mark)) {
      return Optional.empty();
    }
    return Kind.ofLabel(m.group(1)).map(k -> new Ended(k, Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
        m.group(4), m.group(5), m.group(6), m.group(7)));
  }

  /** One word of a log line: no spaces (a region's name has none, a message may). */
  private static String token(String s) {
    return s == null || s.isEmpty() ? "-" : s.replaceAll("\\s+", "_");
  }
}
