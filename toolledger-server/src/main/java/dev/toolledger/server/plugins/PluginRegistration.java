package dev.toolledger.server.plugins;

import dev.toolledger.api.PluginContext;
import dev.toolledger.api.ReadView;
import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TableSchema;
import dev.toolledger.api.Tool;
import dev.toolledger.api.ToolPlugin;
import dev.toolledger.jdbc.migration.Migration;
import dev.toolledger.jdbc.migration.SchemaMigrations;
import dev.toolledger.server.http.ReadEndpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * What the plugins of one node registered: their tools, the migrations of their tables and their
 * read views. Built once at start; a plugin that throws, or an option no plugin declared, stops the
 * start with a message naming the plugin.
 */
public final class PluginRegistration {
  private final List<Tool> tools = new ArrayList<>();
  private final List<SchemaMigrations> tables = new ArrayList<>();
  private final List<ReadView> views = new ArrayList<>();

  private PluginRegistration() {}

  /** A plugin with the options given for it. */
  public record Configured(ToolPlugin plugin, Map<String, String> options) {
    public Configured {
      Objects.requireNonNull(plugin, "plugin");
      options = Map.copyOf(options);
    }
  }

  /**
   * Registers every plugin in order.
   *
   * @throws IllegalArgumentException naming the plugin, for an undeclared option or a plugin that
   *     refused to register
   */
  public static PluginRegistration register(List<Configured> plugins, SqlDialect dialect) {
    PluginRegistration registration = new PluginRegistration();
    // A plugin given again under the same name replaces the earlier one (an embedding application
    // overriding a default), rather than registering its tools twice.
    Map<String, Configured> byName = new java.util.LinkedHashMap<>();
    plugins.forEach(c -> byName.put(c.plugin().name(), c));
    for (Configured configured : byName.values()) {
      ToolPlugin plugin = configured.plugin();
      TreeSet<String> unknown = new TreeSet<>(configured.options().keySet());
      unknown.removeAll(plugin.optionNames());
      if (!unknown.isEmpty()) {
        throw new IllegalArgumentException(
            "plugin "
                + plugin.name()
                + " has no option "
                + String.join(", ", unknown)
                + (plugin.optionNames().isEmpty()
                    ? "; it takes none"
                    : "; it takes " + String.join(", ", new TreeSet<>(plugin.optionNames()))));
      }
      try {
        plugin.register(registration.context(configured.options(), dialect));
      } catch (Exception e) {
        throw new IllegalArgumentException(
            "plugin " + plugin.name() + " could not register: " + e.getMessage(), e);
      }
    }
    return registration;
  }

  private PluginContext context(Map<String, String> options, SqlDialect dialect) {
    return new PluginContext() {
      @Override
      public Optional<String> option(String name) {
        return Optional.ofNullable(options.get(name));
      }

      @Override
      public SqlDialect dialect() {
        return dialect;
      }

      @Override
      public PluginContext tool(Tool tool) {
        tools.add(Objects.requireNonNull(tool, "tool"));
        return this;
      }

      @Override
      public PluginContext tables(TableSchema schema) {
        tables.add(migrations(Objects.requireNonNull(schema, "schema")));
        return this;
      }

      @Override
      public PluginContext readView(ReadView view) {
        views.add(Objects.requireNonNull(view, "view"));
        return this;
      }
    };
  }

  /** A plugin's tables as the store's migrations, to open a store with them already applied. */
  public static SchemaMigrations migrations(TableSchema schema) {
    return new SchemaMigrations(
        schema.component(),
        schema.steps().stream()
            .map(
                step ->
                    Migration.perDialect(
                        step.version(), step.description(), step.sqlite(), step.postgresql()))
            .toList());
  }

  /** Adds a view given to the builder directly, beside the plugins' own. */
  public void addReadView(ReadView view) {
    views.add(Objects.requireNonNull(view, "view"));
  }

  public List<Tool> tools() {
    return List.copyOf(tools);
  }

  /** The plugins' tables, to apply with {@code JdbcLedgerStore.migrateComponents}. */
  public List<SchemaMigrations> tables() {
    return List.copyOf(tables);
  }

  /** The plugins' read views as endpoints reading through {@code dataSource}. */
  public List<ReadEndpoint> readEndpoints(DataSource dataSource, SqlDialect dialect) {
    return views.stream()
        .map(view -> (ReadEndpoint) new ReadViewEndpoint(view, dataSource, dialect))
        .toList();
  }
}
