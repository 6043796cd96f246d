package dev.toolledger.declarative;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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
}
