package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.Http.Reply;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A tool that fails with its input in the exception's message (a common habit) is logged with the
 * exception's class, its stack frames, the tool and the error category, and without the message: so
 * its input never reaches the log, over HTTP or MCP.
 */
class FailureLogsWithoutSecretsTest {
  private static final String CANARY = "canary-in-a-failure-7d1e";

  @TempDir Path dir;
  Cluster cluster;
  ListAppender<ILoggingEvent> captured;
  Logger root;

  /** A tool that throws with the title in its message. */
  static final class Blabbing implements TransactionalTool {
    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder("blab", "1")
          .inputSchema(
              Json.parse(
                  "{\"type\":\"object\",\"required\":[\"title\"],"
                      + "\"properties\":{\"title\":{\"type\":\"string\"}}}"))
          .build();
    }

    @Override
    public ToolResponse execute(TransactionContext context, JsonNode parameters) {
      throw new IllegalArgumentException("cannot take the title " + parameters.get("title"));
    }
  }

  @BeforeEach
  void start() {
    root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    captured = new ListAppender<>();
    captured.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
    captured.start();
    root.addAppender(captured);
    cluster = Cluster.sqlite(dir.resolve("ledger.db"), builder -> builder.tool(new Blabbing()));
  }

  @AfterEach
  void stop() {
    cluster.close();
    root.detachAppender(captured);
  }

  /** Every captured event as the plain layout prints it, stack traces included. */
  String logged() {
    PatternLayout layout = new PatternLayout();
    layout.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
    layout.setPattern("%level %logger %msg %kvp %mdc%n%ex");
    layout.start();
    List<ILoggingEvent> events = List.copyOf(captured.list);
    return events.stream().map(layout::doLayout).collect(Collectors.joining());
  }

  @Test
  void aFailingToolsMessageStaysOutOfTheLog() {
    String acme = cluster.token("acme");

    Reply reply =
        Http.post(
            cluster.node(0), "/v1/tools/blab", acme, "op-1", "{\"title\":\"" + CANARY + "\"}");

    assertThat(reply.status()).isEqualTo(500);
    String log = logged();
    assertThat(log).doesNotContain(CANARY);
    assertThat(log).contains("error=\"tool-failed\"");
    assertThat(log).contains("java.lang.IllegalArgumentException [message withheld]");
    assertThat(log).contains("at dev.toolledger.server.FailureLogsWithoutSecretsTest$Blabbing");
    assertThat(log).contains("request_id=" + reply.header("X-Request-Id"));
  }
}
