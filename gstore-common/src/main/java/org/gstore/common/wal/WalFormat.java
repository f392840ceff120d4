package org.gstore.common.wal;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Frames of the shared write-ahead log: {@code [int length][int CRC32C of the payload][payload]}, big-endian. A
 * file is a sequence of frames written in order and made durable with {@code hflush}, so a crash can only cut the
 * file short: its last frame may be <em>torn</em> (the file ends inside it), and a reader stops cleanly there.
 * Anything else that does not read back, a complete frame with a wrong checksum or an impossible length, is
 * <em>corruption</em>: the reader stops there too, but says so ({@link Stop#CORRUPT}), and a replay must fail
 * loudly rather than skip the acknowledged records behind it.
 */
public final class WalFormat {
  /**
   * The largest payload a frame may carry. The writer refuses larger ones ({@link #frame}), so a reader that meets
   * a larger length is reading corruption; commits are capped well below it before anything is logged.
   */
  public static final int MAX_PAYLOAD = 64 << 20;
  private static final int HEADER = 8;

  /** Why a reader stopped. */
  public enum Stop {
    /** The file ends after a complete frame. */
    END,
    /** The file ends inside a frame: the tail a crash leaves, not an error. */
    TORN_TAIL,
    /** A complete frame does not read back: the records from here on cannot be trusted or skipped. */
    CORRUPT
  }

  private WalFormat() {}

  /** One frame; refuses a payload above {@link #MAX_PAYLOAD}, which no reader would accept. */
  public static byte[] frame(byte[] payload) {
    if (payload.length > MAX_PAYLOAD) {
      throw new IllegalArgumentException("a G-Store WAL record of " + payload.length + " bytes is above the"
          + " format's limit of " + MAX_PAYLOAD + " bytes");
    }
    CRC32C crc = new CRC32C();
    crc.update(payload);
    return ByteBuffer.allocate(HEADER + payload.length).putInt(payload.length).putInt((int) crc.getValue())
        .put(payload).array();
  }

  /** Reads frames one by one from a stream, stopping at the end, at a torn tail or at the first corrupt frame. */
  public static final class Reader {
    private final DataInputStream in;
    private long offset;
    private Stop stop;
    private String stoppedBecause;

    public Reader(InputStream in) {
      this.in = new DataInputStream(in);
    }

    /** The next payload, or null at the end of the readable log (see {@link #stop()}). */
    public byte[] next() throws IOException {
      if (stop != null) {
        return null;
      }
      int first = in.read();
      if (first < 0) {
        return stopped(Stop.END, "end of log");
      }
      try {
        int length = (first << 24) | (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8)
            | in.readUnsignedByte();
        int checksum = in.readInt();
        if (length < 0 || length > MAX_PAYLOAD) {
          return stopped(Stop.CORRUPT, "corrupt frame length " + length + " at offset " + offset);
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        CRC32C crc = new CRC32C();
        crc.update(payload);
        if ((int) crc.getValue() != checksum) {
          return stopped(Stop.CORRUPT, "checksum mismatch at offset " + offset + " (a corrupt record)");
        }
        offset += HEADER + length;
        return payload;
      } catch (EOFException e) {
        return stopped(Stop.TORN_TAIL, "torn frame at offset " + offset + " (the log ends mid-record)");
      }
    }

    private byte[] stopped(Stop why, String text) {
      stop = why;
      stoppedBecause = text;
      return null;
    }

    /** Bytes of complete, valid frames read so far: where the readable log ends once {@link #next()} is null. */
    public long offset() {
      return offset;
    }

    /** Why reading stopped, or null while reading. */
    public Stop stop() {
      return stop;
    }

    /** Why reading stopped ("end of log", or where and how the tail is torn or corrupt), or null while reading. */
    public String stoppedBecause() {
      return stoppedBecause;
    }
  }
}
