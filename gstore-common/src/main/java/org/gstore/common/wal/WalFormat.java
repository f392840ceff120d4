package org.gstore.common.wal;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Frames of the shared write-ahead log: {@code [int length][int CRC32C of the payload][payload]}, big-endian. A
 * file is a sequence of frames; the last may be torn by a crash mid-write, and a reader stops cleanly there.
 */
public final class WalFormat {
  /** Larger frames are taken as garbage: no committed transaction is this big. */
  public static final int MAX_PAYLOAD = 64 << 20;
  private static final int HEADER = 8;

  private WalFormat() {}

  public static byte[] frame(byte[] payload) {
    CRC32C crc = new CRC32C();
    crc.update(payload);
    return ByteBuffer.allocate(HEADER + payload.length).putInt(payload.length).putInt((int) crc.getValue())
        .put(payload).array();
  }

  /** Reads frames one by one from a stream, stopping at the end or at the first torn or corrupt frame. */
  public static final class Reader {
    private final DataInputStream in;
    private long offset;
    private String stoppedBecause;

    public Reader(InputStream in) {
      this.in = new DataInputStream(in);
    }

    /** The next payload, or null at the end of the readable log (see {@link #stoppedBecause()}). */
    public byte[] next() throws IOException {
      if (stoppedBecause != null) {
        return null;
      }
      int first = in.read();
      if (first < 0) {
        stoppedBecause = "end of log";
        return null;
      }
      try {
        int length = (first << 24) | (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8)
            | in.readUnsignedByte();
        int checksum = in.readInt();
        if (length < 0 || length > MAX_PAYLOAD) {
          stoppedBecause = "corrupt frame length " + length + " at offset " + offset;
          return null;
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        CRC32C crc = new CRC32C();
        crc.update(payload);
        if ((int) crc.getValue() != checksum) {
          stoppedBecause = "checksum mismatch at offset " + offset + " (torn or corrupt tail)";
          return null;
        }
        offset += HEADER + length;
        return payload;
      } catch (EOFException e) {
        stoppedBecause = "torn frame at offset " + offset + " (the log ends mid-record)";
        return null;
      }
    }

    /** Bytes of complete, valid frames read so far: where the readable log ends once {@link #next()} is null. */
    public long offset() {
      return offset;
    }

    /** Why reading stopped ("end of log", or where and how the tail is torn), or null while reading. */
    public String stoppedBecause() {
      return stoppedBecause;
    }
  }
}
