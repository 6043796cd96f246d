package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.ExecutionOutcome.Executed;
import dev.toolledger.core.engine.ExecutionOutcome.InvalidParameters;
import dev.toolledger.core.engine.ExecutionOutcome.OutcomeUnknown;
import dev.toolledger.core.engine.ExecutionOutcome.RateLimited;
import dev.toolledger.core.engine.ExecutionOutcome.Replayed;
import dev.toolledger.core.engine.ExecutionOutcome.ResponseTooLarge;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.RateLimit;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.testkit.MovableClock;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The limits the engine enforces before it records anything: the size of a stored response, and a
 * per-tenant rate of new operations (replays and lookups are never limited).
 */
abstract class LimitsContractTest extends StoreContractTest {
  static final int MAX_RESPONSE = 1024;
  static final RateLimit THREE_PER_MINUTE = new RateLimit(3, Duration.ofMinutes(1));

  MovableClock clock;
  JdbcLedgerStore store;
  Padded padded;
  PaddedMail mail;
  LedgerEngine engine;

  @BeforeEach
  void openLedger() {
    clock = new MovableClock(Instant.parse("2026-03-01T09:00:00Z"));
    store = node(ItemsTool.MIGRATIONS);
    padded = new Padded();
    mail = new PaddedMail();
    engine =
        LedgerEngine.builder(store, ToolRegistry.of(padded, mail))
            .config(
                EngineConfig.builder()
                    .clock(clock)
                    .maxResponseBytes(MAX_RESPONSE)
                    .newOperationLimit(THREE_PER_MINUTE)
                    .build())
            .build();
  }

  /** A transactional tool that inserts an item and answers {"p": padding}. */
  static final class Padded implements TransactionalTool {
    final AtomicInteger executions = new AtomicInteger();

    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder("padded", "1")
          .inputSchema(
              Json.parse(
                  "{\"type\":\"object\",\"required\":[\"p\"],\"properties\":{\"p\":{\"type\":"
                      + "\"string\"}}}"))
          .build();
    }

    @Override
    public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
      executions.incrementAndGet();
      try (PreparedStatement ps =
          context
              .connection()
              .prepareStatement("INSERT INTO test_items (tenant, name) VALUES (?, 'padded')")) {
        ps.setString(1, context.tenant().value());
        ps.executeUpdate();
      }
      return ToolResponse.of(201, Json.object().put("p", parameters.get("p").asText()));
    }
  }

  /** An external tool whose downstream answers {"p": padding} after performing its effect. */
  static final class PaddedMail implements ExternalTool {
    final AtomicInteger performs = new AtomicInteger();

    @Override
    public ToolDescriptor descriptor() {
      return ToolDescriptor.builder("padded-mail", "1")
          .inputSchema(
              Json.parse(
                  "{\"type\":\"object\",\"required\":[\"p\"],\"properties\":{\"p\":{\"type\":"
                      + "\"string\"}}}"))
          .build();
    }

    @Override
    public EffectResult perform(EffectContext context, JsonNode parameters) {
      performs.incrementAndGet();
      return EffectResult.done(
          ToolResponse.of(202, Json.object().put("p", parameters.get("p").asText())));
    }
  }

  /** A body {"p":"..."} of exactly {@code bytes} UTF-8 bytes, of characters {@code c} long. */
  static String padding(int bytes, String c) {
    int each = c.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    int payload = bytes - "{\"p\":\"\"}".length();
    assertThat(payload % each).isZero();
    return c.repeat(payload / each);
  }

  ExecutionOutcome call(TenantId tenant, String tool, String key, String p) {
    return engine.execute(Invocation.of(tenant, key(key), tool, Json.object().put("p", p)));
  }

  long rows(String table) {
    return queryLong(store, "SELECT COUNT(*) FROM " + table);
  }

  @Test
  void responseOverTheLimitRollsTheEffectBackAndLeavesTheKeyFree() {
    ExecutionOutcome tooLarge = call(ACME, "padded", "op-1", padding(MAX_RESPONSE + 2, "é"));

    assertThat(tooLarge).isInstanceOf(ResponseTooLarge.class);
    assertThat(((ResponseTooLarge) tooLarge).bytes()).isEqualTo(MAX_RESPONSE + 2);
    assertThat(((ResponseTooLarge) tooLarge).limit()).isEqualTo(MAX_RESPONSE);
    assertThat(padded.executions).hasValue(1);
    assertThat(rows("test_items")).as("the effect rolled back").isZero();
    assertThat(rows("tl_operations")).as("nothing recorded").isZero();

    assertThat(call(ACME, "padded", "op-1", "small")).isInstanceOf(Executed.class);
    assertThat(rows("test_items")).isEqualTo(1);
  }

  @Test
  void responseOfExactlyTheLimitInUtf8BytesIsRecorded() {
    ExecutionOutcome atLimit = call(ACME, "padded", "op-1", padding(MAX_RESPONSE, "é"));
    ExecutionOutcome oneOver = call(ACME, "padded", "op-2", padding(MAX_RESPONSE + 1, "a"));

    assertThat(atLimit).isInstanceOf(Executed.class);
    assertThat(((Executed) atLimit).response().body()).hasSize((MAX_RESPONSE - 8) / 2 + 8);
    assertThat(oneOver).isInstanceOf(ResponseTooLarge.class);
  }

  @Test
  void externalResponseOverTheLimitLeavesTheOperationUnknownAndNeverPerformsAgain() {
    ExecutionOutcome first = call(ACME, "padded-mail", "op-1", padding(MAX_RESPONSE + 1, "a"));
    ExecutionOutcome retry = call(ACME, "padded-mail", "op-1", padding(MAX_RESPONSE + 1, "a"));

    assertThat(first).isInstanceOf(OutcomeUnknown.class);
    assertThat(retry).isInstanceOf(OutcomeUnknown.class);
    assertThat(mail.performs).hasValue(1);
    assertThat(store.find(ACME, key("op-1")).orElseThrow().state())
        .isEqualTo(OperationState.UNKNOWN);
    List<HistoryEntry> history = store.history(ACME, key("op-1"));
    assertThat(history.get(history.size() - 1).cause())
        .contains("over the stored-response limit of " + MAX_RESPONSE);
  }

  @Test
  void newOperationsBeyondTheTenantsRateAreRefusedAndRecordNothing() {
    for (int i = 1; i <= 3; i++) {
      assertThat(call(ACME, "padded", "op-" + i, "x")).isInstanceOf(Executed.class);
    }

    ExecutionOutcome fourth = call(ACME, "padded", "op-4", "x");

    assertThat(fourth).isInstanceOf(RateLimited.class);
    // One permit comes back every 60 s / 3 = 20 s.
    assertThat(((RateLimited) fourth).retryAfter()).isEqualTo(Duration.ofSeconds(20));
    assertThat(store.find(ACME, key("op-4"))).isEmpty();
    assertThat(padded.executions).hasValue(3);
  }

  @Test
  void replaysAndLookupsAreNeverLimited() {
    for (int i = 1; i <= 3; i++) {
      call(ACME, "padded", "op-" + i, "x");
    }

    for (int i = 0; i < 10; i++) {
      assertThat(call(ACME, "padded", "op-1", "x")).isInstanceOf(Replayed.class);
      assertThat(engine.lookup(ACME, key("op-2"))).isPresent();
    }
    assertThat(call(ACME, "padded", "op-4", "x")).isInstanceOf(RateLimited.class);
  }

  @Test
  void eachTenantHasABucketOfItsOwn() {
    for (int i = 1; i <= 3; i++) {
      call(ACME, "padded", "op-" + i, "x");
    }

    assertThat(call(ACME, "padded", "op-4", "x")).isInstanceOf(RateLimited.class);
    assertThat(call(GLOBEX, "padded", "op-4", "x")).isInstanceOf(Executed.class);
  }

  @Test
  void theBucketRefillsAsTimePasses() {
    for (int i = 1; i <= 3; i++) {
      call(ACME, "padded", "op-" + i, "x");
    }
    assertThat(call(ACME, "padded", "op-4", "x")).isInstanceOf(RateLimited.class);

    clock.advance(Duration.ofSeconds(19));
    assertThat(call(ACME, "padded", "op-4", "x")).isInstanceOf(RateLimited.class);
    clock.advance(Duration.ofSeconds(1));
    assertThat(call(ACME, "padded", "op-4", "x")).isInstanceOf(Executed.class);
    assertThat(call(ACME, "padded", "op-5", "x")).isInstanceOf(RateLimited.class);
  }

  @Test
  void requestsRefusedBeforeTheKeyIsReadTakeNoPermit() {
    for (int i = 0; i < 5; i++) {
      ExecutionOutcome invalid =
          engine.execute(Invocation.of(ACME, key("op-bad"), "padded", Json.object()));
      assertThat(invalid).isInstanceOf(InvalidParameters.class);
    }

    for (int i = 1; i <= 3; i++) {
      assertThat(call(ACME, "padded", "op-" + i, "x")).isInstanceOf(Executed.class);
    }
  }

  @Test
  void withoutALimitATenantStartsAsManyOperationsAsItLikes() {
    engine =
        LedgerEngine.builder(store, ToolRegistry.of(padded))
            .config(EngineConfig.builder().clock(clock).unlimitedNewOperations().build())
            .build();

    for (int i = 1; i <= 20; i++) {
      assertThat(call(ACME, "padded", "op-" + i, "x")).isInstanceOf(Executed.class);
    }
  }
}
