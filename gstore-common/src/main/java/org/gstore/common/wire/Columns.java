package org.gstore.common.wire;

import com.google.protobuf.ByteString;

/**
 * A column ({@code family:qualifier}) as one key: the family's length in two bytes, the family, the qualifier. No
 * two pairs collide, and keys sort by family, then qualifier.
 */
public final class Columns {
  private Columns() {}

  public static ByteString key(ByteString family, ByteString qualifier) {
    return ByteString.copyFrom(new byte[] {(byte) (family.size() >>> 8), (byte) family.size()})
        .concat(family).concat(qualifier);
  }

  public static ByteString key(byte[] family, byte[] qualifier) {
    return key(ByteString.copyFrom(family), ByteString.copyFrom(qualifier));
  }

  public static ByteString family(ByteString key) {
    return key.substring(2, 2 + familyLength(key));
  }

  public static ByteString qualifier(ByteString key) {
    return key.substring(2 + familyLength(key));
  }

  /** Unsigned lexicographic order of the key bytes. */
  public static int compare(ByteString a, ByteString b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      int c = Integer.compare(a.byteAt(i) & 0xff, b.byteAt(i) & 0xff);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  private static int familyLength(ByteString key) {
    return ((key.byteAt(0) & 0xff) << 8) | (key.byteAt(1) & 0xff);
  }
}
