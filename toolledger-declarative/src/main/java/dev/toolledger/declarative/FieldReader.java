package dev.toolledger.declarative;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the readers of the kinds that call an upstream ({@code http}, {@code mcp}) read an entry's
 * fields with: each method reads one field, adds every mistake it finds to {@link #errors()} (each
 * with its file, line and field) and goes on, so that a reader refuses all of an entry's mistakes
 * at once. A method that finds a mistake returns null or empty; the reader then builds nothing and
 * {@link #throwIfAny()} throws them all. Public only for those sibling packages.
 */
public final class FieldReader {
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
  private static final Pattern SHORT_DURATION = Pattern.compile("([1-9][0-9]{0,8})(ms|s|m|h)");

  private final Definition definition;
  private final List<DefinitionException> errors = new ArrayList<>();
  private final Set<String> properties = new TreeSet<>();
  private final Set<String> fillable = new TreeSet<>();

  /** A reader of {@code definition}, which knows the properties of its {@code parameters}. */
  public FieldReader(Definition definition) {
    this.definition = definition;
    JsonNode schema = definition.node().path("parameters");
    for (Map.Entry<String, JsonNode> property : schema.path("properties").properties()) {
      properties.add(property.getKey());
      if (property.getValue().has("default")) {
        fillable.add(property.getKey());
      }
    }
    for (JsonNode required : schema.path("required")) {
      if (properties.contains(required.asText())) {
        fillable.add(required.asText());
      }
    }
  }

  /** The mistakes found so far; a reader adds its own kind's too. */
  public List<DefinitionException> errors() {
    return errors;
  }

  /** Throws every mistake found, if any. */
  public void throwIfAny() throws DefinitionException {
    DefinitionException.throwIfAny(errors);
  }

  /** The names of the {@code parameters}' properties, sorted. */
  public Set<String> properties() {
    return properties;
  }

  /** The parameters' property names for a message: comma-separated, or "none". */
  public String propertiesOrNone() {
    return properties.isEmpty() ? "none" : String.join(", ", properties);
  }

  /**
   * Whether a placeholder {@code {name}} inside a text at {@code pointer} can always be filled: the
   * parameter is required or has a default. If not, adds the mistake.
   */
  public boolean fillable(String pointer, String name) {
    if (fillable.contains(name)) {
      return true;
    }
    errors.add(
        definition.error(
            pointer,
            "{"
                + name
                + "} must name a required parameter or one with a default: this text cannot be"
                + " built without it"));
    return false;
  }

  /** Refuses the entry's fields that neither every kind nor this one ({@code kindFields}) has. */
  public void refuseUnknownFields(Set<String> kindFields) {
    try {
      definition.refuseUnknownFields(kindFields);
    } catch (DefinitionException e) {
      errors.add(e);
    }
  }

  /** The mapping at {@code pointer}, whose fields must be among {@code fields}; empty if absent. */
  public Optional<JsonNode> mapping(String pointer, boolean required, Set<String> fields) {
    Optional<JsonNode> node = definition.field(pointer);
    if (node.isEmpty()) {
      if (required) {
        errors.add(definition.error(pointer, "is required"));
      }
      return Optional.empty();
    }
    if (!node.get().isObject()) {
      errors.add(definition.error(pointer, "must be a mapping of fields"));
      return Optional.empty();
    }
    for (Iterator<String> names = node.get().fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!fields.contains(name)) {
        errors.add(
            definition.error(
                pointer + "/" + escape(name),
                "unknown field; " + pointer.substring(1) + " has " + new TreeSet<>(fields)));
      }
    }
    return node;
  }

  /** The text at {@code pointer}; empty if absent or not a text. */
  public Optional<String> text(String pointer) {
    try {
      return definition.optionalText(pointer);
    } catch (DefinitionException e) {
      errors.add(e);
      return Optional.empty();
    }
  }

  /**
   * The positive duration at {@code pointer} ({@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h} or
   * ISO-8601); {@code fallback} if absent, null if unusable.
   */
  public Duration duration(String pointer, Duration fallback) {
    Optional<String> text = text(pointer);
    if (text.isEmpty()) {
      return definition.field(pointer).isPresent() ? null : fallback;
    }
    Matcher shorthand = SHORT_DURATION.matcher(text.get());
    Duration duration = null;
    if (shorthand.matches()) {
      long amount = Long.parseLong(shorthand.group(1));
      duration =
          switch (shorthand.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
          };
    } else {
      try {
        duration = Duration.parse(text.get());
      } catch (DateTimeParseException e) {
        // reported below
      }
    }
    if (duration == null || duration.isNegative() || duration.isZero()) {
      errors.add(
          definition.error(
              pointer,
              "'"
                  + text.get()
                  + "' is not a positive duration; write 500ms, 5s, 2m, 1h or ISO-8601 (PT5S)"));
      return null;
    }
    return duration;
  }

  /**
   * Whether {@code name} may be configured as a header: a valid header name that is not one of
   * {@code restricted} (lower case), which the {@code client} ("HTTP client") sets itself.
   */
  public boolean headerNameUsable(
      String pointer, String name, Set<String> restricted, String client) {
    if (!TOKEN.matcher(name).matches()) {
      errors.add(definition.error(pointer, "'" + name + "' is not a valid header name"));
      return false;
    }
    if (restricted.contains(name.toLowerCase(Locale.ROOT))) {
      errors.add(
          definition.error(
              pointer, name + " is set by the " + client + " itself and cannot be configured"));
      return false;
    }
    return true;
  }

  /**
   * The header mapping at {@code pointer}, by name in the order written, each value resolved from
   * the environment; empty if absent, null after a mistake. Each name must be usable ({@link
   * #headerNameUsable}), given once, not refused by {@code refusal} (a message, or null to accept
   * it), and a secret's value must come from the environment ({@link #valueFromFile}).
   */
  public Map<String, String> headers(
      String pointer,
      Set<String> restricted,
      String client,
      String secretExample,
      Function<String, String> refusal) {
    Optional<JsonNode> node = definition.field(pointer);
    if (node.isEmpty()) {
      return Map.of();
    }
    if (!node.get().isObject()) {
      errors.add(definition.error(pointer, "must be a mapping of header names to values"));
      return null;
    }
    Map<String, String> headers = new LinkedHashMap<>();
    Set<String> seen = new TreeSet<>();
    boolean ok = true;
    for (Map.Entry<String, JsonNode> field : node.get().properties()) {
      String name = field.getKey();
      String at = pointer + "/" + escape(name);
      if (!headerNameUsable(at, name, restricted, client)) {
        ok = false;
        continue;
      }
      String refused = refusal.apply(name);
      if (refused != null) {
        errors.add(definition.error(at, refused));
        ok = false;
        continue;
      }
      if (!seen.add(name.toLowerCase(Locale.ROOT))) {
        errors.add(definition.error(at, "header " + name + " is given twice"));
        ok = false;
        continue;
      }
      if (!field.getValue().isTextual()) {
        errors.add(definition.error(at, "must be a string (quote it)"));
        ok = false;
        continue;
      }
      String value = valueFromFile(at, name, field.getValue().textValue(), secretExample);
      if (value == null) {
        ok = false;
      } else {
        headers.put(name, value);
      }
    }
    return ok ? headers : null;
  }

  /**
   * The value written for header or variable {@code name} with its {@code ${VARIABLE}}s resolved;
   * null after a mistake. The value of a secret's name must come from the environment, like {@code
   * example}. Never echoes a value.
   */
  public String valueFromFile(String pointer, String name, String written, String example) {
    if (EnvironmentValues.sensitive(name) && !EnvironmentValues.fromEnvironment(written)) {
      errors.add(
          definition.error(
              pointer,
              "looks like an inline secret: the value of "
                  + name
                  + " must come from the environment, like "
                  + example
                  + "; never write the secret itself into the tools file"));
      return null;
    }
    return substitute(pointer, written);
  }

  /** {@code written} with its {@code ${VARIABLE}}s resolved; null after a mistake. */
  public String substitute(String pointer, String written) {
    return EnvironmentValues.substitute(definition, errors, pointer, written);
  }

  /** {@code name} as one JSON Pointer segment. */
  public static String escape(String name) {
    return FieldLines.escape(name);
  }
}
