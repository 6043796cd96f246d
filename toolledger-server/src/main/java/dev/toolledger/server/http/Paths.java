package dev.toolledger.server.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Percent-decoding of raw path segments and query strings, without the '+' means space rule. */
final class Paths {
  private Paths() {}

  /**
   * Decodes one path segment.
   *
   * @throws IllegalArgumentException on a malformed escape
   */
  static String decodeSegment(String raw) {
    if (raw.indexOf('%') < 0) {
      return raw;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%') {
        if (i + 2 >= raw.length()) {
          throw new IllegalArgumentException("malformed percent-escape in the path");
        }
        int hi = Character.digit(raw.charAt(i + 1), 16);
        int lo = Character.digit(raw.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          throw new IllegalArgumentException("malformed percent-escape in the path");
        }
        out.write((hi << 4) | lo);
        i += 2;
      } else {
        out.write(c);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /**
   * The route of a raw path, safe to log: operation keys and tool names are replaced by
   * placeholders, and a path of no known route is not repeated.
   */
  static String template(String path) {
    if (path == null) {
      return "(none)";
    }
    if (path.startsWith("/v1/operations/")) {
      return path.endsWith("/resolve") ? "/v1/operations/{key}/resolve" : "/v1/operations/{key}";
    }
    if (path.startsWith("/v1/tools/")) {
      return "/v1/tools/{tool}";
    }
    return switch (path) {
      case "/v1/tools", "/v1/notes", "/health", "/openapi.json" -> path;
      default -> "(another path)";
    };
  }

  /** The first value of each query parameter. */
  static Map<String, String> query(String rawQuery) {
    Map<String, String> params = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return params;
    }
    for (String pair : rawQuery.split("&", -1)) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decodeSegment((eq < 0 ? pair : pair.substring(0, eq)).replace('+', ' '));
      String value = eq < 0 ? "" : decodeSegment(pair.substring(eq + 1).replace('+', ' '));
      params.putIfAbsent(name, value);
    }
    return params;
  }
}
