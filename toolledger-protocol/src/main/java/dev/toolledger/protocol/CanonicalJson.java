package dev.toolledger.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.erdtman.jcs.NumberToJSON;

/**
 * RFC 8785 (JSON Canonicalization Scheme) serialization of a Jackson tree.
 *
 * <p>Properties are sorted by their UTF-16 code units ({@link String#compareTo} order), numbers are
 * written as ECMAScript writes an IEEE 754 double (the reference implementation's {@link
 * NumberToJSON} does that part), strings escape only what JSON requires, and no whitespace is
 * written. So {@code 1}, {@code 1.0} and {@code 1e0} are all {@code 1}.
 *
 * <p>What it does not do: numbers are doubles in JCS, so integers beyond 2<sup>53</sup> lose
 * precision and two such integers may canonicalize alike. Tools that need exact large integers
 * should take them as strings.
 */
@NotApi
public final class CanonicalJson {
  private CanonicalJson() {}

  /** The canonical form as a string. */
  public static String canonicalize(JsonNode node) {
    StringBuilder out = new StringBuilder(256);
    write(node, out);
    return out.toString();
  }

  /** The canonical form as UTF-8 bytes, which is what a fingerprint hashes. */
  public static byte[] canonicalUtf8(JsonNode node) {
    return canonicalize(node).getBytes(StandardCharsets.UTF_8);
  }

  /** Appends the canonical form of {@code node} to {@code out}. */
  public static void write(JsonNode node, StringBuilder out) {
    switch (node.getNodeType()) {
      case OBJECT -> writeObject(node, out);
      case ARRAY -> {
        out.append('[');
        boolean first = true;
        for (JsonNode element : node) {
          if (!first) {
            out.append(',');
          }
          first = false;
          write(element, out);
        }
        out.append(']');
      }
      case STRING -> writeString(node.textValue(), out);
      case NUMBER -> writeNumber(node, out);
      case BOOLEAN -> out.append(node.booleanValue() ? "true" : "false");
      case NULL -> out.append("null");
      default ->
          throw new IllegalArgumentException(
              "a " + node.getNodeType() + " node has no JSON form and cannot be canonicalized");
    }
  }

  private static void writeObject(JsonNode node, StringBuilder out) {
    List<Map.Entry<String, JsonNode>> fields = new ArrayList<>(node.properties());
    fields.sort(Map.Entry.comparingByKey());
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, JsonNode> field : fields) {
      if (!first) {
        out.append(',');
      }
      first = false;
      writeString(field.getKey(), out);
      out.append(':');
      write(field.getValue(), out);
    }
    out.append('}');
  }

  private static void writeNumber(JsonNode node, StringBuilder out) {
    if (node.canConvertToExactIntegral() && node.canConvertToLong()) {
      long value = node.longValue();
      // Integers that a double represents exactly print the same as ECMAScript would print them;
      // skipping the double conversion keeps the common case cheap.
      if (Math.abs(value) < (1L << 53)) {
        out.append(value);
        return;
      }
    }
    double value = node.doubleValue();
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      throw new IllegalArgumentException("a number outside the range of a double has no JCS form");
    }
    try {
      out.append(NumberToJSON.serializeNumber(value));
    } catch (IOException e) {
      throw new IllegalArgumentException("the number " + value + " has no JCS form", e);
    }
  }

  /** Appends {@code value} as a canonical JSON string, quotes included. */
  public static void writeString(String value, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append("\\u00");
            out.append(Character.forDigit(c >> 4, 16));
            out.append(Character.forDigit(c & 0xF, 16));
          } else if (Character.isSurrogate(c)) {
            if (Character.isHighSurrogate(c)
                && i + 1 < value.length()
                && Character.isLowSurrogate(value.charAt(i + 1))) {
              out.append(c).append(value.charAt(++i));
            } else {
              throw new IllegalArgumentException(
                  "a string holds a lone surrogate at position " + (i + 1) + "; it is not Unicode");
            }
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
