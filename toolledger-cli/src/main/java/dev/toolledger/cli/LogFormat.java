package dev.toolledger.cli;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How log lines look on stderr: {@code plain} (the default) or {@code json}, one JSON object per
 * line. Chosen by {@code --log-format} or else {@value #VARIABLE}, and fixed before anything logs:
 * logback.xml picks its appender by the system property of the same name, which {@link #apply}
 * sets.
 */
enum LogFormat {
  PLAIN,
  JSON;

  /** The environment variable, and the system property logback.xml reads. */
  static final String VARIABLE = "TOOLLEDGER_LOG_FORMAT";

  static final String OPTION = "--log-format";

  /**
   * The format the command line or else the environment asks for.
   *
   * @throws IllegalArgumentException for a value other than plain or json
   */
  static LogFormat choose(String[] args, Map<String, String> environment) {
    Optional<String> value = fromArgs(args);
    String source = OPTION;
    if (value.isEmpty()) {
      value = Optional.ofNullable(environment.get(VARIABLE)).filter(v -> !v.isBlank());
      source = VARIABLE;
    }
    if (value.isEmpty()) {
      return PLAIN;
    }
    try {
      return valueOf(value.get().strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(source + " must be plain or json");
    }
  }

  private static Optional<String> fromArgs(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals(OPTION) && i + 1 < args.length) {
        return Optional.of(args[i + 1]);
      }
      if (args[i].startsWith(OPTION + "=")) {
        return Optional.of(args[i].substring(OPTION.length() + 1));
      }
      if (args[i].equals("--")) {
        break;
      }
    }
    return Optional.empty();
  }

  /** Makes logback.xml pick this format's appender when logging starts. */
  void apply() {
    System.setProperty(VARIABLE, name().toLowerCase(Locale.ROOT));
  }
}
