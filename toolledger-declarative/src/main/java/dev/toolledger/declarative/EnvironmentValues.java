package dev.toolledger.declarative;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Values of a tools file that come from the environment ({@code ${VARIABLE}}), and the names whose
 * values are secrets and so must come from it. Shared by the kinds that send credentials ({@code
 * http}, {@code mcp}); public only for those sibling packages.
 */
public final class EnvironmentValues {
  private static final Set<String> SENSITIVE_NAMES =
      Set.of("authorization", "proxy-authorization", "cookie", "x-api-key");
  private static final List<String> SENSITIVE_PARTS =
      List.of("token", "secret", "key", "password", "passwd", "auth", "credential", "session");
  private static final Pattern ENV_REFERENCE = Pattern.compile("\\$\\{([^}]*)\\}");
  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /** An optional scheme word ({@code Bearer}) and then only environment references. */
  private static final Pattern FROM_ENVIRONMENT =
      Pattern.compile("(?:[A-Za-z][A-Za-z0-9._~+/-]* +)?(?:\\$\\{[A-Za-z_][A-Za-z0-9_]*\\})+");

  private EnvironmentValues() {}

  /** Whether a header or variable of this name carries a secret (case-insensitive). */
  public static boolean sensitive(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return SENSITIVE_NAMES.contains(lower) || SENSITIVE_PARTS.stream().anyMatch(lower::contains);
  }

  /** Whether {@code written} takes its secret from the environment, not from the file. */
  public static boolean fromEnvironment(String written) {
    return FROM_ENVIRONMENT.matcher(written).matches();
  }

  /**
   * {@code written} with its {@code ${VARIABLE}}s resolved from the definition's environment; null
   * after an error, each added to {@code errors}. Never echoes a resolved value.
   */
  public static String substitute(
      Definition definition, List<DefinitionException> errors, String pointer, String written) {
    StringBuilder value = new StringBuilder();
    Matcher reference = ENV_REFERENCE.matcher(written);
    int at = 0;
    boolean ok = true;
    while (reference.find()) {
      value.append(written, at, reference.start());
      at = reference.end();
      String variable = reference.group(1);
      if (!ENV_NAME.matcher(variable).matches()) {
        errors.add(
            definition.error(
                pointer, "${" + variable + "} is not an environment variable reference"));
        ok = false;
        continue;
      }
      String resolved = definition.environment().get(variable);
      if (resolved == null) {
        errors.add(definition.error(pointer, "environment variable " + variable + " is not set"));
        ok = false;
      } else if (resolved.isEmpty()) {
        errors.add(definition.error(pointer, "environment variable " + variable + " is empty"));
        ok = false;
      } else if (hasControl(resolved)) {
        errors.add(
            definition.error(
                pointer,
                "environment variable "
                    + variable
                    + " contains a line break or another control character"));
        ok = false;
      } else {
        value.append(resolved);
      }
    }
    String rest = written.substring(at);
    if (rest.contains("${")) {
      errors.add(definition.error(pointer, "has an unterminated ${...} reference"));
      ok = false;
    }
    value.append(rest);
    if (hasControl(written)) {
      errors.add(definition.error(pointer, "contains a line break or another control character"));
      ok = false;
    }
    return ok ? value.toString() : null;
  }

  private static boolean hasControl(String text) {
    return text.chars().anyMatch(c -> (c < 0x20 && c != '\t') || c == 0x7F);
  }
}
