package dev.toolledger.api;

import java.util.Set;

/**
 * A set of tools packaged in a jar, found by {@link java.util.ServiceLoader}: list the class in
 * {@code META-INF/services/dev.toolledger.api.ToolPlugin} and put the jar on the server's classpath
 * or in its {@code --plugins-dir}. An embedding application can also pass an instance to the
 * builder directly.
 *
 * <p>A plugin is registered once, at start, before the server answers anything: it adds its tools,
 * the migrations of its own tables and its read views to the {@link PluginContext}. A plugin that
 * throws stops the start; the server never runs half-configured.
 *
 * <p>Implementations found by {@code ServiceLoader} need a public no-argument constructor; they
 * take their settings from {@link PluginContext#option}.
 */
public interface ToolPlugin {
  /**
   * The plugin's name, {@code [a-z0-9][a-z0-9._-]*}: its options are given as {@code --tool-option
   * NAME.OPTION=VALUE}, and {@code --without-plugin NAME} leaves it out.
   */
  String name();

  /** The option names this plugin reads; any other option given for it is refused at start. */
  default Set<String> optionNames() {
    return Set.of();
  }

  /** Adds the plugin's tools, tables and views. */
  void register(PluginContext context) throws Exception;
}
