package dev.toolledger.declarative.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * An http or https URL whose path and query may hold {@code {parameter}} placeholders. Each value
 * is percent-encoded as a path segment (every byte but the unreserved {@code A-Z a-z 0-9 - . _ ~}),
 * so a value can never add a path segment, a query or a fragment. The scheme, host and port are
 * fixed: they cannot be templated.
 *
 * <p>A value can still be a segment that the upstream (or a proxy before it) would normalise away:
 * {@code ..}, {@code .} or the empty string. The reader refuses those values in the parameter
 * schema ({@link #pathPlaceholders()}), so such a call is {@code invalid-parameters} before
 * anything is claimed; {@link #expand} refuses a path that still came out with a segment the
 * template did not have, as a second line.
 */
record UrlTemplate(String text, List<Placeholders.Part> parts) {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  UrlTemplate {
    parts = List.copyOf(parts);
  }

  /** The scheme, host and port, for comparing origins. */
  String origin() {
    URI sample = URI.create(text.replaceAll(Placeholders.PLACEHOLDER.pattern(), "x"));
    return sample.getScheme().toLowerCase(java.util.Locale.ROOT)
        + "://"
        + sample.getRawAuthority().toLowerCase(java.util.Locale.ROOT);
  }

  /** The names of the placeholders in the path (before any {@code ?}), in order. */
  java.util.Set<String> pathPlaceholders() {
    java.util.Set<String> names = new java.util.LinkedHashSet<>();
    for (Placeholders.Part part : parts) {
      if (!part.placeholder()) {
        if (part.text().contains("?")) {
          break;
        }
      } else {
        names.add(part.text());
      }
    }
    return names;
  }

  /** The URL for one call. {@code downstreamKey} fills {@code {downstreamKey}} (lookup only). */
  URI expand(JsonNode parameters, String downstreamKey) throws TemplateException {
    StringBuilder url = new StringBuilder();
    for (Placeholders.Part part : parts) {
      if (!part.placeholder()) {
        url.append(part.text());
      } else if (part.text().equals(Placeholders.DOWNSTREAM_KEY) && downstreamKey != null) {
        encode(downstreamKey, url);
      } else {
        encode(scalar(parameters, part.text(), "the URL"), url);
      }
    }
    URI uri;
    try {
      uri = URI.create(url.toString());
    } catch (IllegalArgumentException e) {
      throw new TemplateException("the URL is not valid after filling in the parameters");
    }
    if (climbs(uri.getRawPath())) {
      throw new TemplateException(
          "a parameter made a path segment that is empty, '.' or '..'; a value may not add, remove"
              + " or climb a segment");
    }
    return uri;
  }

  /** Whether {@code path} has an empty, {@code .} or {@code ..} segment that the template lacks. */
  private boolean climbs(String path) {
    if (path == null || path.isEmpty()) {
      return false;
    }
    String template =
        URI.create(text.replaceAll(Placeholders.PLACEHOLDER.pattern(), "x")).getRawPath();
    return badSegments(path) > badSegments(template);
  }

  private static int badSegments(String path) {
    int bad = 0;
    String[] segments = path.split("/", -1);
    for (int i = 1; i < segments.length; i++) {
      String segment = segments[i];
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        bad++;
      }
    }
    return bad;
  }

  /** The text of a scalar parameter; refused when it is absent, null, an object or an array. */
  static String scalar(JsonNode parameters, String name, String where) throws TemplateException {
    JsonNode value = parameters.get(name);
    if (value == null || value.isNull()) {
      throw new TemplateException("parameter " + name + " is needed in " + where + " but absent");
    }
    if (value.isContainerNode()) {
      throw new TemplateException(
          "parameter " + name + " is an object or array and cannot be placed in " + where);
    }
    return value.asText();
  }

  static void encode(String value, StringBuilder out) {
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xFF;
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
  }
}
