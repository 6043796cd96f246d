package dev.toolledger.declarative.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.Tool;
import dev.toolledger.declarative.DefinitionException;
import dev.toolledger.declarative.ToolsFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading {@code kind: mcp} entries: what is refused, with which line, and that nothing leaks. */
class McpToolDefinitionTest {
  private static final Map<String, String> ENV =
      Map.of(
          "JAVA", "/usr/bin/java",
          "TRACKER_CLASSPATH", "/opt/tracker.jar",
          "TRACKER_MAIN", "Tracker",
          "TRACKER_DATA", "/var/tracker",
          "TRACKER_TOKEN", "trk-very-secret");

  @TempDir Path dir;

  private List<Tool> load(String yaml, Map<String, String> env) throws Exception {
    Path file = dir.resolve("tools.yaml");
    Files.writeString(file, yaml);
    return ToolsFile.load(file, env, ToolsFile.builtInKinds());
  }

  @Test
  void theExampleLoadsWithoutStartingAnythingAndShowsNoSecret() throws Exception {
    List<Tool> tools = ToolsFile.load(McpToolContractTest.EXAMPLE, ENV, ToolsFile.builtInKinds());

    ExternalTool tool = (ExternalTool) tools.get(0);
    assertThat(tool.name()).isEqualTo("create-ticket");
    assertThat(tool.descriptor().inputSchema().path("required").get(0).asText()).isEqualTo("title");
    assertThat(tool.supportsLookup()).isTrue();
    assertThat(tool.idempotentDownstream()).isFalse();
    assertThat(tool.lease()).hasSeconds(30);
    assertThat(tool.toString())
        .isEqualTo("McpTool[create-ticket -> create_ticket at stdio java, with lookup find_ticket]")
        .doesNotContain("trk-very-secret")
        .doesNotContain("/var/tracker");
    ((McpTool) tool).close();
  }

  @Test
  void everyMistakeIsReportedAtOnceWithItsLineAndNoSecretIsRepeated() {
    String yaml =
        """
        tools:
          - kind: mcp
            name: create-ticket
            version: "1"
            parameters:
              type: object
              required: [title]
              properties: {title: {type: string}}
            upstream:
              url: http://127.0.0.1:9/mcp
              command: [tracker]
            tool: create_ticket
          - kind: mcp
            name: other
            version: "1"
            parameters: {type: object, properties: {title: {type: string}}}
            upstream:
              url: http://127.0.0.1:9/mcp
              headers: {Authorization: "Bearer trk-inline-secret", X-Team: "${MISSING}"}
              timeout: 20s
            arguments: {title: "{titel}", note: "about {title}"}
            lookup: {tool: find_ticket, not-found: maybe}
            lease: 30s
            idempotent-upstream: true
          - kind: mcp
            name: third
            version: "1"
            upstream:
              command: [tracker]
              env: {TRACKER_TOKEN: trk-inline-secret}
        """;

    assertThatThrownBy(() -> load(yaml, ENV))
        .isInstanceOf(DefinitionException.class)
        .satisfies(
            e -> {
              List<String> errors = ((DefinitionException) e).errors();
              assertThat(errors)
                  .anySatisfy(m -> assertThat(m).contains(":9: tools[0].upstream: has both"))
                  .anySatisfy(
                      m ->
                          assertThat(m)
                              .contains(":19: tools[1].upstream.headers.Authorization: looks like"))
                  .anySatisfy(
                      m -> assertThat(m).contains("environment variable MISSING is not set"))
                  .anySatisfy(
                      m -> assertThat(m).contains("tools[1].arguments.title: {titel} is not a"))
                  .anySatisfy(
                      m ->
                          assertThat(m)
                              .contains("tools[1].arguments.note: {title} must name a required"))
                  .anySatisfy(m -> assertThat(m).contains("tools[1].lookup.arguments: is required"))
                  .anySatisfy(m -> assertThat(m).contains("tools[1].lookup.not-found: must be"))
                  .anySatisfy(m -> assertThat(m).contains("tools[1].lease: the lease (30000 ms)"))
                  .anySatisfy(m -> assertThat(m).contains("tools[1].idempotent-upstream: unknown"))
                  .anySatisfy(m -> assertThat(m).contains("tools[1].tool: is required"))
                  .anySatisfy(
                      m ->
                          assertThat(m).contains("tools[2].upstream.env.TRACKER_TOKEN: looks like"))
                  .anySatisfy(m -> assertThat(m).contains("tools[2].tool: is required"));
              assertThat(e.getMessage()).doesNotContain("trk-inline-secret");
            });
  }

  @Test
  void withoutParametersNothingIsAskedUntilTheDescriptorIsWanted() throws Exception {
    String yaml =
        """
        tools:
          - kind: mcp
            name: create-ticket
            version: "1"
            upstream:
              url: http://127.0.0.1:9/mcp
              timeout: 1s
              start-timeout: 1s
            tool: create_ticket
        """;

    McpTool tool = (McpTool) load(yaml, Map.of()).get(0);

    assertThat(tool.name()).isEqualTo("create-ticket");
    assertThatThrownBy(tool::descriptor)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot be read")
        .hasMessageContaining("write parameters in the tools file")
        .hasMessageNotContaining("/mcp");
    tool.close();
  }
}
