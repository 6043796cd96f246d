package dev.toolledger.declarative.http;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code {name}} placeholders of a URL or a body string. A placeholder is a brace, an
 * identifier ({@code [A-Za-z_][A-Za-z0-9_-]*}) and a brace; any other brace is literal text.
 */
final class Placeholders {
  static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z_][A-Za-z0-9_-]*)\\}");

  /** The name that the lookup URL may use for the downstream key. */
  static final String DOWNSTREAM_KEY = "downstreamKey";

  private Placeholders() {}

  /** A piece of a template: literal text, or the name of a placeholder. */
  record Part(String text, boolean placeholder) {}

  static List<Part> split(String template) {
    List<Part> parts = new ArrayList<>();
    Matcher m = PLACEHOLDER.matcher(template);
    int at = 0;
    while (m.find()) {
      if (m.start() > at) {
        parts.add(new Part(template.substring(at, m.start()), false));
      }
      parts.add(new Part(m.group(1), true));
      at = m.end();
    }
    if (at < template.length()) {
      parts.add(new Part(template.substring(at), false));
    }
    return List.copyOf(parts);
  }

  /** The whole string is one placeholder: its name, else null. */
  static String whole(String text) {
    Matcher m = PLACEHOLDER.matcher(text);
    return m.matches() ? m.group(1) : null;
  }
}
