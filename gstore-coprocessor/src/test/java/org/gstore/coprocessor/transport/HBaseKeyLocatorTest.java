package org.gstore.coprocessor.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The protocol thread asks where keys are, and a closing region's drain waits behind it: it must get an answer at
 * once even while {@code hbase:meta} cannot be read (its region in transition), which the lookups here plant.
 */
@Timeout(30)
class HBaseKeyLocatorTest {
  private static final ServerName RS1 = ServerName.valueOf("rs1", 16020, 1L);
  private static final ServerName RS2 = ServerName.valueOf("rs2", 16020, 1L);

  /** What meta says now: regions [.., m) and [m, ..) of table t, each on a server the test sets. */
  private volatile List<HRegionLocation> meta = List.of(location("", "m", RS1), location("m", "", RS2));
  /** Each lookup waits for a permit: meta unreachable until the test gives one. */
  private final Semaphore metaAnswers = new Semaphore(0);
  private final List<String> lookedUp = new CopyOnWriteArrayList<>();
  /** The next lookup fails, as one whose retries ran out does. */
  private final java.util.concurrent.atomic.AtomicBoolean metaFails = new java.util.concurrent.atomic.AtomicBoolean();
  private final HBaseKeyLocator locator = new HBaseKeyLocator(this::lookUp, r -> new Thread(r, "test-locator"));

  @AfterEach
  void close() {
    locator.close();
  }

  private static HRegionLocation location(String start, String end, ServerName server) {
    RegionInfo region = RegionInfoBuilder.newBuilder(TableName.valueOf("t")).setStartKey(Bytes.toBytes(start))
        .setEndKey(Bytes.toBytes(end)).build();
    return new HRegionLocation(region, server);
  }

  private HRegionLocation lookUp(Key key, boolean reload) throws IOException {
    lookedUp.add(Bytes.toString(key.row()) + (reload ? " reload" : ""));
    try {
      metaAnswers.acquire();
    } catch (InterruptedException e) {
      throw new java.io.InterruptedIOException();
    }
    if (metaFails.getAndSet(false)) {
      throw new IOException("planted: hbase:meta is in transition");
    }
    return meta.stream().filter(l -> l.getRegion().containsRow(key.row())).findFirst().orElse(null);
  }

  private static Key key(String row) {
    return Key.of("t", row);
  }

  private NodeId eventually(String row) {
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> locator.locate(key(row)) != null);
    return locator.locate(key(row));
  }

  @Test
  void aKeyNotCachedIsAnsweredAtOnceWhileMetaCannotBeReadAndLocatedOnceItCan() throws Exception {
    long start = System.nanoTime();
    for (int i = 0; i < 100; i++) {
      assertThat(locator.locate(key("a"))).as("meta does not answer: unknown for now").isNull();
    }
    assertThat(System.nanoTime() - start).as("never waits for meta").isLessThan(TimeUnit.SECONDS.toNanos(2));

    metaAnswers.release(10);
    assertThat(eventually("a")).isEqualTo(HBaseKeyLocator.nodeId(RS1));
    assertThat(locator.locate(key("b"))).as("the same region, from the cache").isEqualTo(HBaseKeyLocator.nodeId(RS1));
    assertThat(lookedUp).as("one lookup for the key asked a hundred times, none for its region's other keys")
        .containsExactly("a");
  }

  @Test
  void anInvalidatedRegionIsLookedUpAgainPastTheConnectionsCacheAndASplitReplacesItsParent() throws Exception {
    metaAnswers.release(10);
    assertThat(eventually("x")).isEqualTo(HBaseKeyLocator.nodeId(RS2));

    meta = List.of(location("", "m", RS1), location("m", "p", RS2), location("p", "", RS1)); // [m, ..) split
    locator.invalidate(key("x")); // its supposed host answered "not mine"
    assertThat(eventually("x")).isEqualTo(HBaseKeyLocator.nodeId(RS1));
    assertThat(lookedUp).containsExactly("x", "x reload");
    assertThat(locator.locate(key("n"))).as("the parent's other half is not answered from the parent").isNull();
    assertThat(eventually("n")).isEqualTo(HBaseKeyLocator.nodeId(RS2));
  }

  @Test
  void theLookupThreadOutlivesAFailedLookupAndTheKeyIsAskedAgain() throws Exception {
    metaFails.set(true);
    metaAnswers.release(10);
    assertThat(locator.locate(key("a"))).isNull();
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !metaFails.get());
    assertThat(eventually("a")).as("asked again by the next locate").isEqualTo(HBaseKeyLocator.nodeId(RS1));
    assertThat(lookedUp).hasSizeGreaterThanOrEqualTo(2);
  }
}
