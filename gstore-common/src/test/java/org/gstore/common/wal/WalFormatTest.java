package org.gstore.common.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class WalFormatTest {
  private static byte[] log(List<byte[]> payloads) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : payloads) {
      out.write(WalFormat.frame(p));
    }
    return out.toByteArray();
  }

  private static List<byte[]> readAll(WalFormat.Reader reader) throws Exception {
    List<byte[]> read = new ArrayList<>();
    for (byte[] p = reader.next(); p != null; p = reader.next()) {
      read.add(p);
    }
    return read;
  }

  private static List<byte[]> payloads(int n) {
    List<byte[]> payloads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      payloads.add(("commit-" + i + "-" + "x".repeat(i)).getBytes(StandardCharsets.UTF_8));
    }
    return payloads;
  }

  @Test
  void everyFrameWrittenIsReadBackInOrder() throws Exception {
    List<byte[]> payloads = payloads(50);
    WalFormat.Reader reader = new WalFormat.Reader(new ByteArrayInputStream(log(payloads)));
    List<byte[]> read = readAll(reader);
    assertThat(read).hasSize(50);
    for (int i = 0; i < 50; i++) {
      assertThat(read.get(i)).isEqualTo(payloads.get(i));
    }
    assertThat(reader.stoppedBecause()).isEqualTo("end of log");
  }

  @Test
  void aLogCutAtAnyByteYieldsExactlyTheCompleteFramesBeforeTheCut() throws Exception {
    List<byte[]> payloads = payloads(6);
    byte[] log = log(payloads);
    int[] ends = new int[payloads.size()];
    int end = 0;
    for (int i = 0; i < payloads.size(); i++) {
      end += 8 + payloads.get(i).length;
      ends[i] = end;
    }
    for (int cut = 0; cut <= log.length; cut++) {
      WalFormat.Reader reader = new WalFormat.Reader(new ByteArrayInputStream(Arrays.copyOf(log, cut)));
      List<byte[]> read = readAll(reader);
      int complete = 0;
      while (complete < ends.length && ends[complete] <= cut) {
        complete++;
      }
      assertThat(read).as("cut at %d", cut).hasSize(complete);
      assertThat(reader.offset()).isEqualTo(complete == 0 ? 0 : ends[complete - 1]);
      boolean clean = cut == 0 || (complete > 0 && ends[complete - 1] == cut);
      assertThat(reader.stop()).as("cut at %d", cut)
          .isEqualTo(clean ? WalFormat.Stop.END : WalFormat.Stop.TORN_TAIL);
    }
  }

  @Test
  void aCorruptedPayloadStopsReadingAtThatFrame() throws Exception {
    List<byte[]> payloads = payloads(5);
    byte[] log = log(payloads);
    int third = 8 + payloads.get(0).length + 8 + payloads.get(1).length;
    log[third + 8 + 2] ^= 0x01;
    WalFormat.Reader reader = new WalFormat.Reader(new ByteArrayInputStream(log));
    assertThat(readAll(reader)).hasSize(2);
    assertThat(reader.stoppedBecause()).contains("checksum mismatch at offset " + third);
    assertThat(reader.stop()).isEqualTo(WalFormat.Stop.CORRUPT);
  }

  @Test
  void aFrameLongerThanTheFormatAllowsIsCorruptionNotATornTail() throws Exception {
    byte[] log = log(payloads(3));
    byte[] huge = java.nio.ByteBuffer.allocate(8 + 16).putInt(WalFormat.MAX_PAYLOAD + 1).putInt(0).array();
    byte[] both = Arrays.copyOf(log, log.length + huge.length);
    System.arraycopy(huge, 0, both, log.length, huge.length);
    WalFormat.Reader reader = new WalFormat.Reader(new ByteArrayInputStream(both));
    assertThat(readAll(reader)).hasSize(3);
    assertThat(reader.stop()).isEqualTo(WalFormat.Stop.CORRUPT);
  }

  @Test
  void theWriterRefusesAPayloadNoReaderWouldAccept() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> WalFormat.frame(new byte[WalFormat.MAX_PAYLOAD + 1]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("above the format's limit");
  }
}
