package dev.toolledger.clientmcp;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.toolledger.client.LookupResult;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * What the agent side writes to its logs while it works over MCP: never the token, a raw key, a
 * parameter or a response body — neither from this module nor from the SDK client at the level the
 * docs recommend ({@code INFO}). At {@code DEBUG} the SDK prints whole messages; a test pins that,
 * because the docs' advice rests on it.
 */
class McpClientLoggingTest {
  private static final String SECRET_TITLE = "secret-title-7f3a";
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void clientAndSdkAtInfoLogNoTokenKeyParameterOrBody() throws Exception {
    Secrets[] secrets = new Secrets[1];
    List<String> lines = capture(Level.INFO, () -> secrets[0] = work());

    assertThat(lines).as("something was logged").isNotEmpty();
    for (String line : lines) {
      assertThat(line).doesNotContain(secrets[0].token()).doesNotContain(SECRET_TITLE);
      for (String key : secrets[0].keys()) {
        assertThat(line).doesNotContain(key);
      }
    }
  }

  @Test
  void sdkClientAtDebugPrintsWholeMessagesWithTheKeyAndTheArguments() throws Exception {
    Secrets[] secrets = new Secrets[1];
    List<String> lines = capture(Level.DEBUG, () -> secrets[0] = work());

    assertThat(String.join("\n", lines)).contains(SECRET_TITLE).contains(secrets[0].keys().get(0));
  }

  private record Secrets(String token, List<String> keys) {}

  @FunctionalInterface
  private interface Work {
    void run() throws Exception;
  }

  /** A lost answer and its retry, a rejection, an unknown tool and a refused token. */
  private Secrets work() throws Exception {
    try (LedgerNode node = LedgerNode.start(dir);
        LossyProxy network =
            LossyProxy.start(
                node.uri(), McpTraffic.losing("create-note", DropPolicy.next(1, e -> true)));
        ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"))) {
      String token = node.token("acme");
      List<String> keys = new ArrayList<>();
      try (McpActionTransport mcp =
          McpActionTransport.streamableHttp(
              McpActionTransportTest.endpoint(network), token, TIMEOUT)) {
        ToolLedgerClient client =
            ToolLedgerClient.builder()
                .journal(journal)
                .transport(mcp)
                .retryPolicy(
                    RetryPolicy.builder()
                        .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
                        .build())
                .build();
        Outcome created =
            client.execute(
                "w", "1", "create-note", Json.parse("{\"title\":\"" + SECRET_TITLE + "\"}"));
        assertThat(created).isInstanceOf(Outcome.Completed.class);
        keys.add(created.key().value());
        Outcome invalid =
            client.execute(
                "w",
                "2",
                "create-note",
                Json.parse("{\"title\":\"" + SECRET_TITLE + "\",\"x\":1}"));
        assertThat(invalid).isInstanceOf(Outcome.Rejected.class);
        keys.add(invalid.key().value());
        Outcome unknownTool =
            client.execute(
                "w", "3", "no-such-tool", Json.parse("{\"title\":\"" + SECRET_TITLE + "\"}"));
        assertThat(unknownTool).isInstanceOf(Outcome.Rejected.class);
        keys.add(unknownTool.key().value());
        assertThat(client.lookup(created.key())).isInstanceOf(LookupResult.Found.class);
      }
      String forged = "tl_000000000000_" + "f".repeat(32);
      try (McpActionTransport refused =
          McpActionTransport.streamableHttp(node.mcpUri(), forged, TIMEOUT)) {
        ToolLedgerClient client =
            ToolLedgerClient.builder().journal(journal).transport(refused).build();
        Outcome outcome =
            client.execute(
                "w", "4", "create-note", Json.parse("{\"title\":\"" + SECRET_TITLE + "\"}"));
        assertThat(outcome).isInstanceOf(Outcome.Rejected.class);
        keys.add(outcome.key().value());
      }
      return new Secrets(token, keys);
    }
  }

  /**
   * Runs {@code work} with the agent side's loggers (this module, toolledger-client, the SDK's
   * client classes) at {@code sdkLevel} for the SDK and DEBUG for ours, and returns their lines.
   */
  private static List<String> capture(Level sdkLevel, Work work) throws Exception {
    Map<String, Level> levels =
        Map.of(
            "dev.toolledger.client", Level.DEBUG,
            "dev.toolledger.clientmcp", Level.DEBUG,
            "io.modelcontextprotocol", sdkLevel);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    Map<String, Level> before = new HashMap<>();
    for (Map.Entry<String, Level> entry : levels.entrySet()) {
      Logger logger = (Logger) LoggerFactory.getLogger(entry.getKey());
      before.put(entry.getKey(), logger.getLevel());
      logger.setLevel(entry.getValue());
    }
    root.addAppender(appender);
    try {
      work.run();
    } finally {
      root.detachAppender(appender);
      for (Map.Entry<String, Level> entry : before.entrySet()) {
        ((Logger) LoggerFactory.getLogger(entry.getKey())).setLevel(entry.getValue());
      }
    }
    List<String> lines = new ArrayList<>();
    for (ILoggingEvent event : appender.list) {
      if (!agentSide(event.getLoggerName())) {
        continue;
      }
      String line =
          event.getLoggerName()
              + " "
              + event.getFormattedMessage()
              + " "
              + event.getKeyValuePairs();
      if (event.getThrowableProxy() != null) {
        line += " " + ThrowableProxyUtil.asString(event.getThrowableProxy());
      }
      lines.add(line);
    }
    return lines;
  }

  /** The agent's side of the wire; the in-process server logs under other names. */
  private static boolean agentSide(String logger) {
    return logger.startsWith("dev.toolledger.client")
        || logger.startsWith("io.modelcontextprotocol.client")
        || logger.equals("io.modelcontextprotocol.spec.McpClientSession")
        || logger.startsWith("io.modelcontextprotocol.spec.DefaultMcpTransport");
  }
}
