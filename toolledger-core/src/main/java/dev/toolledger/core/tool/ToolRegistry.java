package dev.toolledger.core.tool;

import dev.toolledger.api.Tool;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.core.schema.ParameterSchema;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The tools an engine serves, each with its compiled parameter schema. Immutable. */
public final class ToolRegistry {
  private final Map<String, RegisteredTool> tools;

  private ToolRegistry(Map<String, RegisteredTool> tools) {
    this.tools = tools;
  }

  /**
   * Registers the tools by name, each with its compiled input schema.
   *
   * @throws IllegalArgumentException when two tools share a name or a schema does not compile
   */
  public static ToolRegistry of(Collection<? extends Tool> tools) {
    Map<String, RegisteredTool> byName = new LinkedHashMap<>();
    for (Tool tool : tools) {
      ToolDescriptor descriptor = tool.descriptor();
      RegisteredTool registered =
          new RegisteredTool(tool, ParameterSchema.compile(descriptor.inputSchema()));
      if (byName.putIfAbsent(descriptor.name(), registered) != null) {
        throw new IllegalArgumentException(
            "two tools are named "
                + descriptor.name()
                + " ("
                + byName.get(descriptor.name()).tool().getClass().getName()
                + " and "
                + tool.getClass().getName()
                + "); rename one, or leave one out (--without-plugin PLUGIN, or remove it from"
                + " the tools file)");
      }
    }
    return new ToolRegistry(Map.copyOf(byName));
  }

  public static ToolRegistry of(Tool... tools) {
    return of(List.of(tools));
  }

  public Optional<RegisteredTool> find(String name) {
    return Optional.ofNullable(tools.get(name));
  }

  public List<RegisteredTool> all() {
    return tools.values().stream()
        .sorted(java.util.Comparator.comparing(t -> t.descriptor().name()))
        .toList();
  }

  /** A tool together with its compiled schema. */
  public record RegisteredTool(Tool tool, ParameterSchema schema) {
    public ToolDescriptor descriptor() {
      return tool.descriptor();
    }
  }
}
