package dev.toolledger.declarative.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.Tool;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.declarative.ToolsFile;
import dev.toolledger.declarative.http.InvoiceService.Next;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * A canary: with every logger at DEBUG or TRACE (the root lowered, and Apache HttpClient's own
 * loggers set explicitly), an http tool's calls (a success, a lost answer settled by a lookup whose
 * URL carries the downstream key) leave no secret from {@code ${ENV}}, no body and no downstream
 * key in any log event, whatever its logger.
 */
class HttpClientLogsCanaryTest {
  private static final String SECRET = "canary-secret-7f3a91";
  private static final String PARAMETER = "canary-parameter-91b2";

  @TempDir Path dir;
  InvoiceService upstream;
  JdbcLedgerStore store;
  final ListAppender<ILoggingEvent> events = new ListAppender<>();
  final List<Level> levelsBefore = new ArrayList<>();

  @AfterEach
  void stop() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(events);
    context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(levelsBefore.get(0));
    for (String name : new String[] {"org.apache.hc", "org.apache.hc.client5.http.wire"}) {
      context.getLogger(name).setLevel(null);
    }
    if (store != null) {
      store.close();
    }
    if (upstream != null) {
      upstream.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"DEBUG", "TRACE"})
  void noLogLevelPrintsASecretABodyOrADownstreamKey(String level) throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    levelsBefore.add(root.getLevel());
    events.setContext(context);
    events.start();
    root.addAppender(events);
    root.setLevel(Level.toLevel(level));
    context.getLogger("org.apache.hc").setLevel(Level.toLevel(level));
    context.getLogger("org.apache.hc.client5.http.wire").setLevel(Level.TRACE);

    upstream = InvoiceService.start(false);
    Path file = dir.resolve("tools.yaml");
    Files.writeString(
        file,
        InvoiceTools.variant(false, "5s", InvoiceTools.LOOKUP)
            .replace("127.0.0.1:8089", upstream.address()));
    List<Tool> tools =
        ToolsFile.load(file, Map.of("BILLING_TOKEN", SECRET), List.of(new HttpToolKind()));
    store = JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build());
    LedgerEngine engine =
        LedgerEngine.builder(store, ToolRegistry.of(tools))
            .downstreamKeys(store.downstreamKeys())
            .keyHasher(store.keyHasher())
            .build();
    TenantId acme = TenantId.of("acme");
    String parameters = "{\"customer\":\"" + PARAMETER + "\",\"amount\":4242}";

    ExecutionOutcome done =
        engine.execute(
            Invocation.of(
                acme, OperationKey.of("inv-1"), "create-invoice", Json.parse(parameters)));
    upstream.then(Next.CREATE_THEN_DROP);
    ExecutionOutcome settled =
        engine.execute(
            Invocation.of(
                acme, OperationKey.of("inv-2"), "create-invoice", Json.parse(parameters)));

    assertThat(done).isInstanceOf(ExecutionOutcome.Executed.class);
    assertThat(settled).isInstanceOf(ExecutionOutcome.Executed.class);
    assertThat(upstream.lookups.get()).isEqualTo(1);
    List<String> canaries = new ArrayList<>(List.of(SECRET, PARAMETER, "4242", "inv_1", "inv_2"));
    for (var headers : upstream.receivedHeaders()) {
      canaries.add(headers.get("Idempotency-key").asText());
    }
    assertThat(events.list).as("events captured at " + level).isNotEmpty();
    for (ILoggingEvent event : events.list) {
      String text = everything(event);
      for (String canary : canaries) {
        assertThat(text)
            .as(event.getLoggerName() + " at " + event.getLevel())
            .doesNotContain(canary);
      }
    }
  }

  private static String everything(ILoggingEvent event) {
    StringBuilder text = new StringBuilder(event.getLoggerName()).append(' ');
    text.append(event.getFormattedMessage()).append(' ');
    if (event.getKeyValuePairs() != null) {
      event.getKeyValuePairs().forEach(kv -> text.append(kv.key).append('=').append(kv.value));
    }
    text.append(event.getMDCPropertyMap());
    for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
      text.append(' ').append(t.getMessage());
    }
    return text.toString();
  }
}
