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
 * Fields it does not know are passed over; blank lines too, and operations of no client process. Anything else
 * it cannot take is a
 * {@link HistoryFormatException} naming the line.
 */
public final class HistoryReader {
  private static final JsonFactory JSON = new JsonFactory();

  private HistoryReader() {}

  public static List<Op> read(Path file) throws IOException, HistoryFormatException {
    List<Op> ops = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      long number = 0;
      while ((line = in.readLine()) != null) {
        number++;
        Op op = line.isBlank() ? null : parse(line, number);
        if (op != null) {
          ops.add(op);
        }
      }
    }
    return ops;
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
      if (index == null || process == null || type == null || f == null) {
        throw new HistoryFormatException(number, "an operation needs index, process, type and f");
      }
      return new Op(index, time == null ? index : time, process, type, f, value);
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
      values[n++] = p.getLongValue();
    }
    if (e != JsonToken.END_ARRAY) {
      throw new HistoryFormatException(number, "a read's value must be a list of integers or null");
    }
    return java.util.Arrays.copyOf(values, n);
  }
}
