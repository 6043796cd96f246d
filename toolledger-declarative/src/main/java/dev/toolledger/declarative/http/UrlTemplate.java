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
    try {
      return URI.create(url.toString());
    } catch (IllegalArgumentException e) {
      throw new TemplateException("the URL is not valid after filling in the parameters");
    }
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
