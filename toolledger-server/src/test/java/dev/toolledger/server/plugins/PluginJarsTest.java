package dev.toolledger.server.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.ToolPlugin;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plugin jar built the way a team builds theirs (compiled against the tool API alone, its class
 * listed in META-INF/services) is found in a plugins directory and registers its tool; bad plugin
 * configurations stop the start with a message that names the plugin.
 */
class PluginJarsTest {
  static final String SOURCE =
      """
      package com.example.tickets;

      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.toolledger.api.*;
      import java.util.Set;

      public final class TicketsPlugin implements ToolPlugin {
        public String name() { return "tickets"; }
        public Set<String> optionNames() { return Set.of("queue"); }
        public void register(PluginContext context) {
          String queue = context.option("queue").orElse("default");
          context.tool(new TransactionalTool() {
            public ToolDescriptor descriptor() {
              return ToolDescriptor.builder("open-ticket-" + queue, "1")
                  .inputSchema(JsonNodeFactory.instance.objectNode().put("type", "object"))
                  .build();
            }
            public ToolResponse execute(TransactionContext c, JsonNode p) {
              return ToolResponse.of(201, JsonNodeFactory.instance.objectNode());
            }
          });
        }
      }
      """;

  @TempDir Path dir;

  Path buildPluginJar() throws IOException {
    Path src = dir.resolve("src/com/example/tickets/TicketsPlugin.java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, SOURCE);
    Path classes = dir.resolve("classes");
    Files.createDirectories(classes);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int rc =
        javac.run(
            null,
            null,
            null,
            "--release",
            "17",
            "-classpath",
            System.getProperty("java.class.path"),
            "-d",
            classes.toString(),
            src.toString());
    assertThat(rc).as("the plugin compiles against the tool API").isZero();
    Path plugins = dir.resolve("plugins");
    Files.createDirectories(plugins);
    Path jar = plugins.resolve("tickets-plugin.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> files = Files.walk(classes)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
        Files.copy(file, out);
        out.closeEntry();
      }
      out.putNextEntry(new JarEntry("META-INF/services/" + ToolPlugin.class.getName()));
      OutputStream entry = out;
      entry.write("com.example.tickets.TicketsPlugin\n".getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    return plugins;
  }

  @Test
  void aPluginJarInThePluginsDirectoryIsFoundAndConfiguredByItsOptions() throws IOException {
    Path plugins = buildPluginJar();
    Map<String, ToolPlugin> found =
        PluginDiscovery.discover(PluginDiscovery.jars(plugins, getClass().getClassLoader()));
    assertThat(found).containsKey("tickets");

    PluginRegistration registration =
        PluginRegistration.register(
            List.of(
                new PluginRegistration.Configured(found.get("tickets"), Map.of("queue", "ops"))),
            SqlDialect.SQLITE);
    assertThat(registration.tools()).extracting(t -> t.name()).containsExactly("open-ticket-ops");
  }

  @Test
  void anOptionThePluginDidNotDeclareStopsTheStart() throws IOException {
    Map<String, ToolPlugin> found =
        PluginDiscovery.discover(
            PluginDiscovery.jars(buildPluginJar(), getClass().getClassLoader()));
    assertThatThrownBy(
            () ->
                PluginRegistration.register(
                    List.of(
                        new PluginRegistration.Configured(
                            found.get("tickets"), Map.of("qeue", "ops"))),
                    SqlDialect.SQLITE))
        .hasMessageContaining("plugin tickets has no option qeue; it takes queue");
  }

  @Test
  void aMissingPluginsDirectoryIsRefusedByName() {
    Path missing = dir.resolve("no-such-dir");
    assertThatThrownBy(() -> PluginDiscovery.jars(missing, getClass().getClassLoader()))
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("is not a directory");
  }

  @Test
  void aPluginThatFailsToRegisterStopsTheStartNamingIt() {
    ToolPlugin broken =
        new ToolPlugin() {
          @Override
          public String name() {
            return "broken";
          }

          @Override
          public void register(dev.toolledger.api.PluginContext context) {
            throw new IllegalStateException("the billing URL is not set");
          }
        };
    assertThatThrownBy(
            () ->
                PluginRegistration.register(
                    List.of(new PluginRegistration.Configured(broken, Map.of())),
                    SqlDialect.SQLITE))
        .hasMessage("plugin broken could not register: the billing URL is not set");
  }
}
