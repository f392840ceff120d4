package org.gstore.client;

import java.io.ByteArrayOutputStream;

/** Row bytes as text that survives a round trip through {@link GroupId#toString()} and {@link GroupId#of}. */
final class Printable {
  private Printable() {}

  static String escape(byte[] bytes) {
    StringBuilder sb = new StringBuilder(bytes.length);
    for (byte b : bytes) {
      int c = b & 0xff;
      if (c >= ' ' && c <= '~' && c != '\\' && c != '@') {
        sb.append((char) c);
      } else {
        sb.append(String.format("\\x%02X", c));
      }
    }
    return sb.toString();
  }

  static byte[] unescape(String text) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\') {
        if (i + 3 >= text.length() || text.charAt(i + 1) != 'x') {
          throw new IllegalArgumentException("bad escape at " + i + " in '" + text + "'");
        }
        out.write(Integer.parseInt(text.substring(i + 2, i + 4), 16));
        i += 3;
      } else if (c > '~' || c < ' ') {
        throw new IllegalArgumentException("unexpected character at " + i + " in '" + text + "'");
      } else {
        out.write(c);
      }
    }
    return out.toByteArray();
  }
}
