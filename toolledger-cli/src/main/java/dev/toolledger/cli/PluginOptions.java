package dev.toolledger.cli;

import dev.toolledger.api.TableSchema;
import dev.toolledger.api.Tool;
import dev.toolledger.api.ToolPlugin;
import dev.toolledger.declarative.DefinitionException;
import dev.toolledger.declarative.ToolsFile;
import dev.toolledger.declarative.sql.SqlTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.server.ToolLedgerApp;
import dev.toolledger.server.plugins.PluginDiscovery;
import dev.toolledger.server.plugins.PluginRegistration;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Option;

/**
 * Which tools a node serves: the {@link ToolPlugin}s found on the classpath (the bundled {@code
 * notes} plugin with {@code create-note}) and in {@code --plugins-dir}, with their options.
 */
final class PluginOptions {
  @Option(
      names = "--plugins-dir",
      paramLabel = "DIR",
      description =
          "Also load tool plugins from every *.jar in DIR (each lists its classes in"
              + " META-INF/services/dev.toolledger.api.ToolPlugin). Default: the classpath only.")
  Path pluginsDir;

  @Option(
      names = "--tool-option",
      paramLabel = "PLUGIN.NAME=VALUE",
      description =
          "An option for a plugin, e.g. notes.quota=100. Repeatable. An option the plugin does"
              + " not declare stops the start.")
  List<String> toolOptions = new ArrayList<>();

  @Option(
      names = "--without-plugin",
      paramLabel = "PLUGIN",
      description = "Do not load the plugin named PLUGIN (e.g. notes). Repeatable.")
  List<String> without = new ArrayList<>();

  @Option(
      names = "--tools-file",
      paramLabel = "FILE",
      description =
          "Also serve the tools declared in FILE (YAML or JSON: kind http, mcp or sql; see"
              + " docs/tools.md). Repeatable. Any error in a file stops the start.")
  List<Path> toolsFiles = new ArrayList<>();

  private List<Tool> declared;
  private List<TableSchema> declaredTables;

  /**
   * Reads every {@code --tools-file} (once; later calls return the same tools). Call it before
   * opening the database, so that a file with an error stops the start before anything changes.
   *
   * @throws IllegalArgumentException listing every error of every file
   */
  List<Tool> declaredTools() {
    if (declared == null) {
      List<Tool> tools = new ArrayList<>();
      List<TableSchema> tables = new ArrayList<>();
      List<String> errors = new ArrayList<>();
      for (Path file : toolsFiles) {
        try {
          ToolsFile.Contents contents = ToolsFile.read(file);
          tools.addAll(contents.tools());
          contents.tables().ifPresent(tables::add);
        } catch (DefinitionException e) {
          errors.add(e.getMessage());
        }
      }
      refuse(errors);
      declared = List.copyOf(tools);
      declaredTables = List.copyOf(tables);
    }
    return declared;
  }

  /**
   * The declared tools, with the tables their files declare migrated in the ledger database first,
   * and then every SQL statement prepared once against it, so that a statement naming a missing
   * table or column stops the start.
   */
  List<Tool> declaredTools(JdbcLedgerStore store) {
    List<Tool> tools = declaredTools();
    if (!declaredTables.isEmpty()) {
      store.migrateComponents(declaredTables.stream().map(PluginRegistration::migrations).toList());
    }
    if (!tools.isEmpty()) {
      try (Connection connection = store.dataSource().getConnection()) {
        SqlTool.checkPreparable(tools, connection);
      } catch (DefinitionException e) {
        refuse(List.of(e.getMessage()));
      } catch (SQLException e) {
        throw new IllegalStateException(
            "cannot check the declared SQL tools: " + e.getMessage(), e);
      }
    }
    return tools;
  }

  private static void refuse(List<String> errors) {
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(
          "the tools file is not valid; nothing was served:\n" + String.join("\n", errors));
    }
  }

  /** The plugins to serve, each with its options; refuses options for plugins not loaded. */
  List<PluginRegistration.Configured> configured() {
    return configured(Map.of());
  }

  /**
   * As {@link #configured()}, with options that other flags imply (e.g. {@code --notes-quota N} is
   * {@code notes.quota=N}) added to those of {@code --tool-option}.
   */
  List<PluginRegistration.Configured> configured(Map<String, Map<String, String>> implied) {
    ClassLoader loader = PluginOptions.class.getClassLoader();
    if (pluginsDir != null) {
      loader = PluginDiscovery.jars(pluginsDir, loader);
    }
    Map<String, ToolPlugin> found = PluginDiscovery.discover(loader);
    for (String name : without) {
      if (found.remove(name) == null) {
        throw new IllegalArgumentException(
            "--without-plugin " + name + ": no such plugin; loaded: " + names(found));
      }
    }
    Map<String, Map<String, String>> options = new TreeMap<>();
    for (String raw : toolOptions) {
      int dot = raw.indexOf('.');
      int eq = raw.indexOf('=');
      if (dot < 1 || eq < dot + 2) {
        throw new IllegalArgumentException(
            "--tool-option " + raw + ": write PLUGIN.NAME=VALUE, e.g. notes.quota=100");
      }
      String plugin = raw.substring(0, dot);
      if (!found.containsKey(plugin)) {
        throw new IllegalArgumentException(
            "--tool-option "
                + raw
                + ": no plugin "
                + plugin
                + " is loaded; loaded: "
                + names(found));
      }
      options
          .computeIfAbsent(plugin, p -> new LinkedHashMap<>())
          .put(raw.substring(dot + 1, eq), raw.substring(eq + 1));
    }
    implied.forEach(
        (plugin, values) -> {
          if (!values.isEmpty() && !found.containsKey(plugin)) {
            throw new IllegalArgumentException(
                "options " + values.keySet() + " need the plugin " + plugin + ", not loaded");
          }
          values.forEach(
              (name, value) ->
                  options.computeIfAbsent(plugin, p -> new LinkedHashMap<>()).put(name, value));
        });
    List<PluginRegistration.Configured> configured = new ArrayList<>();
    found.forEach(
        (name, plugin) ->
            configured.add(
                new PluginRegistration.Configured(plugin, options.getOrDefault(name, Map.of()))));
    return configured;
  }

  /** Adds every configured plugin to a node. */
  ToolLedgerApp.Builder apply(
      ToolLedgerApp.Builder builder,
      JdbcLedgerStore store,
      Map<String, Map<String, String>> implied) {
    configured(implied).forEach(c -> builder.plugin(c.plugin(), c.options()));
    declaredTools(store).forEach(builder::tool);
    return builder;
  }

  /** The tools the plugins would serve, for commands that only read the ledger. */
  List<Tool> tools(JdbcLedgerStore store) {
    List<Tool> tools =
        new ArrayList<>(PluginRegistration.register(configured(), store.dialect()).tools());
    tools.addAll(declaredTools(store));
    return tools;
  }

  private static String names(Map<String, ToolPlugin> found) {
    return found.isEmpty() ? "none" : String.join(", ", found.keySet());
  }
}
