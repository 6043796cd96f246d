package dev.toolledger.declarative;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.toolledger.api.ToolDescriptor;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One entry of a tools file, with where each of its fields was written, so that an error can say
 * {@code tools.yaml:14: tools[2].upstream.url: ...}.
 *
 * @param file the tools file
 * @param index the entry's position in the file's {@code tools} list, from 0
 * @param node the entry as written (an object)
 * @param lines the line (from 1) of every field, by JSON Pointer relative to the entry ({@code ""}
 *     for the entry itself, {@code "/upstream/url"} for a nested field)
 * @param environment where secrets are read from ({@code System.getenv()} in production)
 */
public record Definition(
    Path file,
    int index,
    JsonNode node,
    Map<String, Integer> lines,
    Map<String, String> environment) {
  /**
   * The fields every kind shares: {@code kind}, {@code name}, {@code version}, {@code description}
   * (default empty), {@code parameters} (a JSON Schema of an object) and {@code retention} (default
   * {@value ToolDescriptor#DEFAULT_RETENTION_DAYS} days).
   */
  public static final Set<String> COMMON_FIELDS =
      Set.of("kind", "name", "version", "description", "parameters", "retention");

  private static final Pattern SHORT_DURATION = Pattern.compile("([1-9][0-9]{0,8})([dhms])");

  public Definition {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(node, "node");
    lines = Map.copyOf(lines);
    environment = Map.copyOf(environment);
  }

  /** The line of the field at {@code pointer}, else of its nearest enclosing field. */
  public int line(String pointer) {
    String p = pointer;
    while (true) {
      Integer line = lines.get(p);
      if (line != null) {
        return line;
      }
      if (p.isEmpty()) {
        return 0;
      }
      p = p.substring(0, Math.max(0, p.lastIndexOf('/')));
    }
  }

  /** An error about the field at {@code pointer} (JSON Pointer relative to the entry). */
  public DefinitionException error(String pointer, String message) {
    return new DefinitionException(
        file
            + ":"
            + line(pointer)
            + ": tools["
            + index
            + "]"
            + pointer.replace('/', '.')
            + ": "
            + message);
  }

  /** The field at {@code pointer}, when present and not null. */
  public Optional<JsonNode> field(String pointer) {
    JsonNode n = node.at(pointer);
    return n.isMissingNode() || n.isNull() ? Optional.empty() : Optional.of(n);
  }

  /**
   * Refuses every field that is neither one of {@link #COMMON_FIELDS} nor one of {@code
   * kindFields}, naming each one (a misspelt optional field would otherwise be silently ignored).
   */
  public void refuseUnknownFields(Set<String> kindFields) throws DefinitionException {
    List<DefinitionException> errors = new ArrayList<>();
    Set<String> allowed = new HashSet<>(COMMON_FIELDS);
    allowed.addAll(kindFields);
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        errors.add(
            error(
                "/" + name.replace("~", "~0").replace("/", "~1"),
                "unknown field; a "
                    + node.path("kind").asText("?")
                    + " tool has "
                    + String.join(", ", allowed.stream().sorted().toList())));
      }
    }
    DefinitionException.throwIfAny(errors);
  }

  /**
   * Reads the common fields into a descriptor, refusing every bad one at once: a missing or
   * malformed {@code name} or {@code version} (by {@link ToolDescriptor}'s own rules; an integer
   * version such as {@code 1} is read as {@code "1"}), a {@code parameters} that is not a valid
   * JSON Schema of an object, a {@code retention} that is not a positive ISO-8601 duration ({@code
   * P7D}, {@code PT12H}) or shorthand ({@code 7d}, {@code 12h}, {@code 30m}, {@code 45s}).
   */
  public ToolDescriptor descriptor() throws DefinitionException {
    List<DefinitionException> errors = new ArrayList<>();
    JsonNode empty = JsonNodeFactory.instance.objectNode();
    String name = null;
    try {
      name = requiredText("/name");
      new ToolDescriptor(name, "1", "", empty, ToolDescriptor.DEFAULT_RETENTION);
    } catch (DefinitionException e) {
      errors.add(e);
    } catch (IllegalArgumentException e) {
      errors.add(error("/name", e.getMessage()));
      name = null;
    }
    String version = null;
    Optional<JsonNode> rawVersion = field("/version");
    if (rawVersion.isEmpty()) {
      errors.add(error("/version", "is required (for example \"1\")"));
    } else if (rawVersion.get().isTextual() || rawVersion.get().isIntegralNumber()) {
      version = rawVersion.get().asText();
      try {
        new ToolDescriptor("x", version, "", empty, ToolDescriptor.DEFAULT_RETENTION);
      } catch (IllegalArgumentException e) {
        errors.add(error("/version", "must be 1 to 32 visible ASCII characters"));
        version = null;
      }
    } else {
      errors.add(error("/version", "must be a string (quote it: \"1.2\")"));
    }
    String description = "";
    try {
      description = optionalText("/description").orElse("");
    } catch (DefinitionException e) {
      errors.add(e);
    }
    JsonNode parameters = null;
    Optional<JsonNode> rawParameters = field("/parameters");
    if (rawParameters.isEmpty()) {
      errors.add(
          error("/parameters", "is required: a JSON Schema of an object ({type: object, ...})"));
    } else {
      List<DefinitionException> schemaErrors = ParametersCheck.check(this, rawParameters.get());
      if (schemaErrors.isEmpty()) {
        parameters = rawParameters.get();
      }
      errors.addAll(schemaErrors);
    }
    Duration retention = ToolDescriptor.DEFAULT_RETENTION;
    try {
      retention = retention();
    } catch (DefinitionException e) {
      errors.add(e);
    }
    DefinitionException.throwIfAny(errors);
    return new ToolDescriptor(name, version, description, parameters, retention);
  }

  /** The string at {@code pointer}; refused when absent, null, empty or not a string. */
  public String requiredText(String pointer) throws DefinitionException {
    return optionalText(pointer)
        .filter(text -> !text.isBlank())
        .orElseThrow(() -> error(pointer, "is required"));
  }

  /** The string at {@code pointer} when present; refused when it is not a string. */
  public Optional<String> optionalText(String pointer) throws DefinitionException {
    Optional<JsonNode> value = field(pointer);
    if (value.isPresent() && !value.get().isTextual()) {
      throw error(pointer, "must be a string");
    }
    return value.map(JsonNode::textValue);
  }

  private Duration retention() throws DefinitionException {
    Optional<String> text = optionalText("/retention");
    if (text.isEmpty()) {
      return ToolDescriptor.DEFAULT_RETENTION;
    }
    Matcher shorthand = SHORT_DURATION.matcher(text.get());
    Duration retention;
    if (shorthand.matches()) {
      long amount = Long.parseLong(shorthand.group(1));
      retention =
          switch (shorthand.group(2)) {
            case "d" -> Duration.ofDays(amount);
            case "h" -> Duration.ofHours(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofSeconds(amount);
          };
    } else {
      try {
        retention = Duration.parse(text.get());
      } catch (DateTimeParseException e) {
        throw error(
            "/retention",
            "'"
                + text.get()
                + "' is not a duration; write ISO-8601 (P7D, PT12H) or 7d, 12h, 30m, 45s");
      }
    }
    if (retention.isNegative() || retention.isZero()) {
      throw error("/retention", "must be positive");
    }
    return retention;
  }
}
