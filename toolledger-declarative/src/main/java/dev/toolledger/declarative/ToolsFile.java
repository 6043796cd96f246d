package dev.toolledger.declarative;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.toolledger.api.TableSchema;
import dev.toolledger.api.Tool;
import dev.toolledger.declarative.sql.TableDeclarations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Reads a tools file: tools defined by configuration instead of code.
 *
 * <p>The file is YAML ({@code .yaml}, {@code .yml}) or JSON ({@code .json}) with a top-level field
 * {@code tools}, a list of entries, and optionally {@code tables}, the tables its SQL tools use as
 * numbered migrations ({@link TableDeclarations}). Each entry's {@code kind} selects a {@link
 * ToolKind} ({@code sql}, {@code http}, ...), which reads the entry's other fields. Every kind
 * shares the {@linkplain Definition#COMMON_FIELDS common fields}.
 *
 * <p>Loading is all or nothing: every error of the file is collected (unknown fields, unknown
 * kinds, missing or malformed names and versions, invalid parameter schemas, duplicate tool names,
 * and whatever each kind refuses) and reported in one {@link DefinitionException}, one {@code
 * file:line: tools[i].field: message} per line. Loading performs no I/O besides reading the file:
 * what needs the database or an upstream (such as {@code
 * dev.toolledger.declarative.sql.SqlTool#checkPreparable}) is checked by the server at start.
 */
public final class ToolsFile {
  private ToolsFile() {}

  /**
   * Loads {@code file} with the built-in kinds ({@link #builtInKinds()}), reading secrets from the
   * process environment.
   */
  public static List<Tool> load(Path file) throws DefinitionException {
    return load(file, System.getenv(), builtInKinds());
  }

  /**
   * What a tools file declares: its tools, and the tables they use, to be migrated in the ledger
   * database before the tools are served.
   */
  public record Contents(List<Tool> tools, Optional<TableSchema> tables) {
    public Contents {
      tools = List.copyOf(tools);
      java.util.Objects.requireNonNull(tables, "tables");
    }
  }

  /** Reads {@code file} with the built-in kinds, its tables included. */
  public static Contents read(Path file) throws DefinitionException {
    return read(file, System.getenv(), builtInKinds());
  }

  /** The kinds registered as {@code META-INF/services/dev.toolledger.declarative.ToolKind}. */
  public static List<ToolKind> builtInKinds() {
    List<ToolKind> kinds = new ArrayList<>();
    ServiceLoader.load(ToolKind.class).forEach(kinds::add);
    return List.copyOf(kinds);
  }

  /**
   * Loads {@code file}.
   *
   * @param environment where kinds read secrets from (passed through to each {@link Definition})
   * @param kinds the kinds an entry may name; names must be unique
   * @return the tools in file order
   * @throws DefinitionException listing every error of the file
   */
  public static List<Tool> load(Path file, Map<String, String> environment, List<ToolKind> kinds)
      throws DefinitionException {
    return read(file, environment, kinds).tools();
  }

  /** As {@link #load(Path, Map, List)}, with the file's tables. */
  public static Contents read(Path file, Map<String, String> environment, List<ToolKind> kinds)
      throws DefinitionException {
    Map<String, ToolKind> byName = new TreeMap<>();
    for (ToolKind kind : kinds) {
      if (byName.putIfAbsent(kind.name(), kind) != null) {
        throw new IllegalArgumentException("two tool kinds are named " + kind.name());
      }
    }
    JsonFactory factory = factoryFor(file);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new DefinitionException(file + ": cannot read the tools file: " + e.getMessage());
    }
    ObjectMapper mapper =
        (factory instanceof YAMLFactory yaml
                ? YAMLMapper.builder(yaml)
                : JsonMapper.builder(factory))
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    JsonNode root;
    Map<String, Integer> lines;
    try {
      root = mapper.readTree(bytes);
      lines = FieldLines.of(factory, bytes);
    } catch (JsonProcessingException e) {
      int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
      throw new DefinitionException(file + ":" + line + ": " + oneLine(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new DefinitionException(file + ": cannot read the tools file: " + e.getMessage());
    }
    return new Reading(file, lines, environment, byName).read(root);
  }

  /**
   * A parser's message on one line: the YAML parser's has the context and the problem, each
   * followed by its position and a snippet of the file, which are dropped.
   */
  private static String oneLine(String message) {
    List<String> parts = new ArrayList<>();
    String[] lines = message.split("\\R", -1);
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].startsWith(" in '")) {
        i += 2;
      } else if (!lines[i].isBlank()) {
        parts.add(lines[i].strip());
      }
    }
    return String.join("; ", parts);
  }

  private static JsonFactory factoryFor(Path file) throws DefinitionException {
    String name = file.getFileName() == null ? "" : file.getFileName().toString();
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
      return new YAMLFactory();
    }
    if (lower.endsWith(".json")) {
      return new JsonFactory();
    }
    throw new DefinitionException(
        file + ": a tools file is YAML (.yaml, .yml) or JSON (.json), by its extension");
  }

  /** One reading of one file, collecting its errors. */
  private static final class Reading {
    private final Path file;
    private final Map<String, Integer> lines;
    private final Map<String, String> environment;
    private final Map<String, ToolKind> kinds;
    private final List<DefinitionException> errors = new ArrayList<>();

    Reading(
        Path file,
        Map<String, Integer> lines,
        Map<String, String> environment,
        Map<String, ToolKind> kinds) {
      this.file = file;
      this.lines = lines;
      this.environment = environment;
      this.kinds = kinds;
    }

    Contents read(JsonNode root) throws DefinitionException {
      if (root == null || !root.isObject()) {
        throw topLevel(
            "", "tools", "a tools file is an object with a field tools: a list (and tables)");
      }
      for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!name.equals("tools") && !name.equals("tables")) {
          errors.add(
              topLevel(
                  "/" + FieldLines.escape(name),
                  name,
                  "unknown top-level field; a tools file has 'tools' and optionally 'tables'"));
        }
      }
      JsonNode entries = root.get("tools");
      List<Tool> tools = new ArrayList<>();
      if (entries == null || entries.isNull()) {
        errors.add(topLevel("", "tools", "is required: a list of tool entries"));
      } else if (!entries.isArray()) {
        errors.add(topLevel("/tools", "tools", "must be a list of tool entries"));
      } else {
        Map<String, Integer> firstByName = new HashMap<>();
        for (int i = 0; i < entries.size(); i++) {
          Definition definition = definition(i, entries.get(i));
          duplicateName(definition, firstByName);
          define(definition).ifPresent(tools::add);
        }
      }
      Optional<TableSchema> tables =
          root.has("tables")
              ? TableDeclarations.read(root.get("tables"), this::at, errors)
              : Optional.empty();
      DefinitionException.throwIfAny(errors);
      return new Contents(tools, tables);
    }

    /** A problem at a JSON Pointer of the file, on the line of the nearest field that has one. */
    private DefinitionException at(String pointer, String message) {
      String nearest = pointer;
      while (!nearest.isEmpty() && !lines.containsKey(nearest)) {
        nearest = nearest.substring(0, nearest.lastIndexOf('/'));
      }
      String field = pointer.substring(1).replaceAll("/(\\d+)", "[$1]").replace('/', '.');
      return new DefinitionException(
          file + ":" + lines.getOrDefault(nearest, 1) + ": " + field + ": " + message);
    }

    private Definition definition(int index, JsonNode entry) {
      String prefix = "/tools/" + index;
      Map<String, Integer> entryLines = new LinkedHashMap<>();
      lines.forEach(
          (pointer, line) -> {
            if (pointer.equals(prefix)) {
              entryLines.put("", line);
            } else if (pointer.startsWith(prefix + "/")) {
              entryLines.put(pointer.substring(prefix.length()), line);
            }
          });
      return new Definition(file, index, entry, entryLines, environment);
    }

    private void duplicateName(Definition definition, Map<String, Integer> firstByName) {
      JsonNode name = definition.node().get("name");
      if (name == null || !name.isTextual()) {
        return;
      }
      Integer first = firstByName.putIfAbsent(name.textValue(), definition.index());
      if (first != null) {
        errors.add(
            definition.error(
                "/name",
                "another tool in this file is named '"
                    + name.textValue()
                    + "' (tools["
                    + first
                    + "], line "
                    + lines.getOrDefault("/tools/" + first + "/name", 0)
                    + "); tool names must be unique"));
      }
    }

    private Optional<Tool> define(Definition definition) {
      if (!definition.node().isObject()) {
        errors.add(definition.error("", "must be an object with a kind, a name and a version"));
        return Optional.empty();
      }
      JsonNode kindField = definition.node().get("kind");
      String known = String.join(", ", kinds.keySet());
      if (kindField == null || kindField.isNull()) {
        errors.add(definition.error("/kind", "is required; one of: " + known));
        return Optional.empty();
      }
      ToolKind kind = kindField.isTextual() ? kinds.get(kindField.textValue()) : null;
      if (kind == null) {
        errors.add(
            definition.error(
                "/kind", "unknown kind '" + kindField.asText() + "'; one of: " + known));
        return Optional.empty();
      }
      try {
        return Optional.of(kind.define(definition));
      } catch (DefinitionException e) {
        errors.add(e);
      } catch (RuntimeException e) {
        errors.add(definition.error("", kind.name() + " tool refused: " + e.getMessage()));
      }
      return Optional.empty();
    }

    private DefinitionException topLevel(String pointer, String field, String message) {
      return new DefinitionException(
          file + ":" + lines.getOrDefault(pointer, 1) + ": " + field + ": " + message);
    }
  }
}
