package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.RowGroupedException;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.OwnerToken;
import org.junit.jupiter.api.Test;

/**
 * Which refusal a write gets. A replay skips a commit refused as {@link RowGroupedException} (its rows left its
 * group), so only a verified token of a group that no longer owns the row may get that one: any other refusal keeps
 * the commit in the log until the cause is fixed.
 */
class WriteFenceTest {
  private static final RegionInfo REGION = RegionInfoBuilder.newBuilder(TableName.valueOf("t")).build();
  private static final Key ROW = Key.of("t", Bytes.toBytes("row"));
  private static final GroupRef OWNER = ref("owner");
  private final HostedRegions hosted = new HostedRegions();
  private final OwnerToken tokens = new OwnerToken(secret("the-cluster-secret-of-this-test"));
  private final WriteFence fence = new WriteFence(hosted, tokens);

  WriteFenceTest() {
    hosted.phases().opened(REGION.getEncodedName());
    hosted.phases().fenced(REGION.getEncodedName());
    hosted.fence(ROW, OWNER);
  }

  @Test
  void theOwnersTokenPassesAndAPlainWriteIsRefusedAsGrouped() {
    assertThat(fence.refusal(REGION, signed(tokens.sign(OWNER, ROW)))).isNull();
    assertThat(RowGroupedException.is(fence.refusal(REGION, new Put(ROW.row())))).isTrue();
  }

  /** The planted defect a chaos run must catch: plain writes into grouped rows; the group's own writes still pass. */
  @Test
  void withSkipFencePlantedAPlainWritePassesAGroupedRow() {
    WriteFence planted = new WriteFence(hosted, tokens, org.gstore.coprocessor.config.TestPlant.SKIP_FENCE);
    assertThat(planted.refusal(REGION, new Put(ROW.row()))).isNull();
    assertThat(planted.refusal(REGION, signed(tokens.sign(OWNER, ROW)))).isNull();
    assertThat(RowGroupedException.is(planted.refusal(REGION, signed(tokens.sign(ref("gone"), ROW))))).isTrue();
  }

  @Test
  void aVerifiedTokenOfAGroupThatNoLongerOwnsTheRowIsRefusedAsGrouped() {
    assertThat(RowGroupedException.is(fence.refusal(REGION, signed(tokens.sign(ref("gone"), ROW))))).isTrue();
  }

  @Test
  void aTokenThatDoesNotVerifyIsNeverRefusedAsGroupedSoAReplayKeepsItsCommit() {
    byte[] otherSecret = new OwnerToken(secret("another-secret-mid-rotation!!")).sign(OWNER, ROW);
    byte[] forAnotherRow = tokens.sign(OWNER, Key.of("t", Bytes.toBytes("other")));
    for (byte[] token : new byte[][] {otherSecret, forAnotherRow}) {
      Exception refusal = fence.refusal(REGION, signed(token));
      assertThat(refusal).isNotNull();
      assertThat(RowGroupedException.is(refusal)).as(refusal.toString()).isFalse();
      assertThat(refusal.getMessage()).contains("does not verify");
    }
  }

  /** Issue 35, item 7: a bulk load went ahead into a region that had not loaded its group state yet. */
  @Test
  void aBulkLoadWaitsForTheRegionsGroupStateAndIsRefusedIntoGroupedRows() {
    RegionInfo loading = RegionInfoBuilder.newBuilder(TableName.valueOf("loading")).build();
    hosted.phases().opened(loading.getEncodedName());
    assertThat(fence.bulkLoadRefusal(loading)).isInstanceOf(org.apache.hadoop.hbase.RegionTooBusyException.class);
    hosted.phases().fenced(loading.getEncodedName());
    assertThat(fence.bulkLoadRefusal(loading)).as("loaded, no grouped row").isNull();
    assertThat(RowGroupedException.is(fence.bulkLoadRefusal(REGION))).isTrue();
  }

  /**
   * Issue 53, hole 1: a bulk load admitted as its store files commit counts as in flight (a join's fence waits for
   * it) until it ends, once however many families it commits; a refused one never counts.
   */
  @Test
  void aBulkLoadAdmittedAtItsCommitIsInFlightUntilItEndsAndARefusedOneNeverIs() {
    RegionInfo free = RegionInfoBuilder.newBuilder(TableName.valueOf("free")).build();
    hosted.phases().opened(free.getEncodedName());
    hosted.phases().fenced(free.getEncodedName());
    assertThat(fence.bulkLoadCommitRefusal(free)).isNull();
    assertThat(fence.bulkLoadCommitRefusal(free)).as("its second family").isNull();
    assertThat(hosted.bulkLoads().anyIn(free.getEncodedName())).isTrue();
    fence.bulkLoadEnded();
    assertThat(hosted.bulkLoads().anyIn(free.getEncodedName())).as("ended once, however many families").isFalse();

    assertThat(RowGroupedException.is(fence.bulkLoadCommitRefusal(REGION))).isTrue();
    assertThat(hosted.bulkLoads().anyIn(REGION.getEncodedName())).isFalse();
    fence.bulkLoadEnded(); // HBase's postBulkLoadHFile after the refusal: nothing to end
    assertThat(hosted.bulkLoads().anyIn(free.getEncodedName())).isFalse();
  }

  private static Put signed(byte[] token) {
    Put put = new Put(ROW.row());
    put.setAttribute(OwnerToken.ATTRIBUTE, token);
    return put;
  }

  private static GroupRef ref(String name) {
    return new GroupRef(new GroupId(name, ROW), new Uid(new NodeId("n1"), 1));
  }

  private static byte[] secret(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
