package dev.toolledger.api;

import java.util.Optional;

/** What a {@link ToolPlugin} registers into, and where it reads its settings. */
public interface PluginContext {
  /**
   * An option given for this plugin ({@code --tool-option PLUGIN.NAME=VALUE}); only names the
   * plugin declared in {@link ToolPlugin#optionNames()} are ever given.
   */
  Optional<String> option(String name);

  /** Which SQL the ledger database speaks, for tools and tables that differ by dialect. */
  SqlDialect dialect();

  /** Serves a tool. Its name must be unique among all the server's tools. */
  PluginContext tool(Tool tool);

  /**
   * Creates or migrates the plugin's own tables in the ledger database before any tool runs, so
   * that a {@link TransactionalTool} writes them in the record's transaction.
   */
  PluginContext tables(TableSchema schema);

  /** Serves a read-only view of the tenant's data at {@code GET /v1/{path}}. */
  PluginContext readView(ReadView view);
}
