package org.gstore.history;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a history: one JSON object per line, as Jepsen writes list-append histories, for example
 * {@code {"index":7,"time":123456789,"process":2,"type":"ok","f":"txn","value":[["r","k12",[3,5]],["append","k40",7]]}}.
 * An operation's {@code group} (a string, optional) names the G-Store group a transaction ran in or a create or
 * delete was of. Fields it does not know are passed over; blank lines too, and operations of no client process. A last line cut
 * short (a writer that crashed mid-line: no line end, not valid JSON) is passed over with a warning, as Jepsen
 * does. Anything else it cannot take, an {@code f} it does not know included, is a {@link HistoryFormatException}
 * naming the line.
 */
public final class HistoryReader {
  private static final JsonFactory JSON = new JsonFactory();
  /** What an operation may do: {@link Op#f}. */
  private static final java.util.Set<String> FUNCTIONS = java.util.Set.of("txn", "read", "create", "delete");

  private HistoryReader() {}

  public static List<Op> read(Path file) throws IOException, HistoryFormatException {
    return readHistory(file).ops();
  }

  /** Reads {@code file} with the line of each operation and the warnings of what was passed over. */
  public static History readHistory(Path file) throws IOException, HistoryFormatException {
    List<Op> ops = new ArrayList<>();
    long[] lines = new long[64];
    List<String> warnings = new ArrayList<>();
    boolean endsWithLineEnd = endsWithLineEnd(file);
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line = in.readLine();
      long number = 0;
      while (line != null) {
        number++;
        String next = in.readLine();
        Op op;
        try {
          op = line.isBlank() ? null : parse(line, number);
        } catch (HistoryFormatException e) {
          if (next != null || endsWithLineEnd || !e.getMessage().contains("not valid JSON")) {
            throw e;
          }
          warnings.add("line " + number + " is cut short (" + line.length() + " characters, no line end): passed"
              + " over, as the last line of a history whose writer stopped mid-line");
          op = null;
        }
        if (op != null) {
          if (ops.size() == lines.length) {
            lines = java.util.Arrays.copyOf(lines, lines.length * 2);
          }
          lines[ops.size()] = number;
          ops.add(op);
        }
        line = next;
      }
    }
    return new History(ops, java.util.Arrays.copyOf(lines, ops.size()), warnings);
  }

  private static boolean endsWithLineEnd(Path file) throws IOException {
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(file.toFile(), "r")) {
      if (f.length() == 0) {
        return true;
      }
      f.seek(f.length() - 1);
      return f.read() == '\n';
    }
  }

  /**
   * One line of a history; {@code number} names it in errors. Null for an operation of no client process (Jepsen's
   * nemesis: its {@code process} is a name), which the checker passes over.
   */
  public static Op parse(String line, long number) throws HistoryFormatException {
    try (JsonParser p = JSON.createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new HistoryFormatException(number, "not a JSON object");
      }
      Long index = null;
      Long time = null;
      Long process = null;
      Op.Type type = null;
      String f = null;
      List<Mop> value = List.of();
      String group = null;
      boolean foreign = false;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken t = p.nextToken();
        switch (field) {
          case "index" -> index = integer(p, t, number, field);
          case "time" -> time = integer(p, t, number, field);
          case "process" -> {
            if (t == JsonToken.VALUE_STRING) {
              foreign = true; // Jepsen's nemesis and the like: not a client's operation
            } else {
              process = integer(p, t, number, field);
            }
          }
          case "type" -> type = type(p, t, number);
          case "f" -> f = text(p, t, number, field);
          case "group" -> group = text(p, t, number, field);
          case "value" -> {
            if (t == JsonToken.VALUE_NULL || f != null && !f.equals("txn") && !f.equals("read")) {
              p.skipChildren(); // nothing the checker reads
            } else {
              value = mops(p, t, number);
            }
          }
          default -> p.skipChildren();
        }
      }
      if (foreign) {
        return null;
      }
      if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
        throw new HistoryFormatException(number, "more than one JSON object");
      }
      List<String> missing = new ArrayList<>();
      if (index == null) {
        missing.add("index");
      }
      if (process == null) {
        missing.add("process");
      }
      if (type == null) {
        missing.add("type");
      }
      if (f == null) {
        missing.add("f");
      }
      if (!missing.isEmpty()) {
        throw new HistoryFormatException(number, "an operation needs index, process, type and f; this one has no "
            + String.join(", ", missing));
      }
      if (!FUNCTIONS.contains(f)) {
        throw new HistoryFormatException(number, "f must be txn, read, create or delete, not \"" + f + "\" (the"
            + " checker would pass over what it does not know, and with it anomalies)");
      }
      return new Op(index, time == null ? index : time, process, type, f, value, group);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new HistoryFormatException(number, "not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new HistoryFormatException(number, "not readable: " + e.getMessage());
    }
  }

  private static long integer(JsonParser p, JsonToken t, long number, String field) throws IOException,
      HistoryFormatException {
    if (t != JsonToken.VALUE_NUMBER_INT) {
      throw new HistoryFormatException(number, field + " must be an integer");
    }
    return inRange(p, number, field);
  }

  /** The integer under the parser, if a long holds it. */
  private static long inRange(JsonParser p, long number, String field) throws IOException, HistoryFormatException {
    if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      throw new HistoryFormatException(number, field + " is out of range: " + p.getText() + " is past what a"
          + " 64-bit integer holds");
    }
    return p.getLongValue();
  }

  private static String text(JsonParser p, JsonToken t, long number, String field) throws IOException,
      HistoryFormatException {
    if (t != JsonToken.VALUE_STRING) {
      throw new HistoryFormatException(number, field + " must be a string");
    }
    return p.getText();
  }

  private static Op.Type type(JsonParser p, JsonToken t, long number) throws IOException, HistoryFormatException {
    String name = text(p, t, number, "type");
    return switch (name) {
      case "invoke" -> Op.Type.INVOKE;
      case "ok" -> Op.Type.OK;
      case "fail" -> Op.Type.FAIL;
      case "info" -> Op.Type.INFO;
      default -> throw new HistoryFormatException(number, "type must be invoke, ok, fail or info, not " + name);
    };
  }

  /** {@code [["r","k",[1,2]|null],["append","k",3],...]}. */
  private static List<Mop> mops(JsonParser p, JsonToken t, long number) throws IOException, HistoryFormatException {
    if (t != JsonToken.START_ARRAY) {
      throw new HistoryFormatException(number, "value must be a list of micro-operations");
    }
    List<Mop> mops = new ArrayList<>();
    while (p.nextToken() == JsonToken.START_ARRAY) {
      String fn = text(p, p.nextToken(), number, "a micro-operation's function");
      String key = keyText(p, p.nextToken(), number);
      JsonToken v = p.nextToken();
      Mop mop;
      if (fn.equals("r")) {
        mop = Mop.read(key, v == JsonToken.VALUE_NULL ? null : list(p, v, number));
      } else if (fn.equals("append")) {
        mop = Mop.append(key, integer(p, v, number, "an appended value"));
      } else {
        throw new HistoryFormatException(number, "a micro-operation is r or append, not " + fn);
      }
      if (p.nextToken() != JsonToken.END_ARRAY) {
        throw new HistoryFormatException(number, "a micro-operation has three parts: function, key, value");
      }
      mops.add(mop);
    }
    if (p.currentToken() != JsonToken.END_ARRAY) {
      throw new HistoryFormatException(number, "value must be a list of micro-operations");
    }
    return mops;
  }

  private static String keyText(JsonParser p, JsonToken t, long number) throws IOException, HistoryFormatException {
    if (t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NUMBER_INT) {
      return p.getText().intern();
    }
    throw new HistoryFormatException(number, "a key must be a string or an integer");
  }

  private static long[] list(JsonParser p, JsonToken t, long number) throws IOException, HistoryFormatException {
    if (t != JsonToken.START_ARRAY) {
      throw new HistoryFormatException(number, "a read's value must be a list of integers or null");
    }
    long[] values = new long[8];
    int n = 0;
    JsonToken e;
    while ((e = p.nextToken()) == JsonToken.VALUE_NUMBER_INT) {
      if (n == values.length) {
        values = java.util.Arrays.copyOf(values, n * 2);
      }
      values[n++] = inRange(p, number, "an element of a read");
    }
    if (e != JsonToken.END_ARRAY) {
      throw new HistoryFormatException(number, "a read's value must be a list of integers or null");
    }
    return java.util.Arrays.copyOf(values, n);
  }
}
