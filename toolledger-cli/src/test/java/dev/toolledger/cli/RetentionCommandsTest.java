package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.RateLimit;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.tool.ToolRegistry;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.server.plugins.PluginRegistration;
import dev.toolledger.testkit.MovableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.TypeConversionException;

/** {@code toolledger sweep}, and the retention and limit options of the serving commands. */
class RetentionCommandsTest {
  static final TenantId ACME = TenantId.of("acme");

  @TempDir Path dir;

  JdbcLedgerStore open(Path file) {
    return JdbcLedgerStore.sqlite(
        SqliteOptions.builder(file)
            .migrations(PluginRegistration.migrations(NotesTables.schema()))
            .build());
  }

  @Test
  void sweepDeletesRecordsWhoseRetentionEndedAndLeavesTombstones() {
    Path file = dir.resolve("ledger.db");
    Instant monthAgo = Instant.now().minus(30, ChronoUnit.DAYS).truncatedTo(ChronoUnit.MILLIS);
    try (JdbcLedgerStore store = open(file)) {
      LedgerEngine engine =
          LedgerEngine.builder(store, ToolRegistry.of(NotesTool.unlimited()))
              .config(EngineConfig.builder().clock(new MovableClock(monthAgo)).build())
              .build();
      ExecutionOutcome outcome =
          engine.execute(
              Invocation.of(
                  ACME, OperationKey.of("op-1"), "create-note", Json.parse("{\"title\":\"a\"}")));
      assertThat(outcome).isInstanceOf(ExecutionOutcome.Executed.class);
    }

    int exit = Main.run("sweep", "--db", file.toString(), "--tombstone-window", "30d");

    assertThat(exit).isZero();
    try (JdbcLedgerStore store = open(file)) {
      assertThat(store.find(ACME, OperationKey.of("op-1"))).isEmpty();
      Tombstone tombstone = store.findTombstone(ACME, OperationKey.of("op-1")).orElseThrow();
      assertThat(tombstone.expiredAt()).isEqualTo(monthAgo.plus(Duration.ofDays(7)));
      assertThat(tombstone.until()).isEqualTo(monthAgo.plus(Duration.ofDays(37)));
    }
  }

  @Test
  void serveRefusesARetentionOverrideForAToolItDoesNotHave() {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream original = System.err;
    int exit;
    System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      exit =
          Main.run(
              "serve",
              "--db",
              dir.resolve("ledger.db").toString(),
              "--port",
              "0",
              "--retention",
              "no-such-tool=30d");
    } finally {
      System.setErr(original);
    }

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("retention: no tool is named no-such-tool");
  }

  /** Runs the command line and returns its exit code and what it printed on stderr. */
  static String[] runCapturingErr(String... args) {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream original = System.err;
    int exit;
    System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      exit = Main.run(args);
    } finally {
      System.setErr(original);
    }
    return new String[] {
      Integer.toString(exit), err.toString(java.nio.charset.StandardCharsets.UTF_8)
    };
  }

  @Test
  void sweepRefusesATombstoneWindowOtherThanTheLedgersAndOtherwiseUsesIt() {
    Path file = dir.resolve("ledger.db");
    Instant monthAgo = Instant.now().minus(30, ChronoUnit.DAYS).truncatedTo(ChronoUnit.MILLIS);
    try (JdbcLedgerStore store = open(file)) {
      store
          .settings()
          .reconcile(
              java.util.Map.of("tombstone-window", Duration.ofDays(30).toString()),
              false,
              "node-1",
              Instant.now());
      LedgerEngine engine =
          LedgerEngine.builder(store, ToolRegistry.of(NotesTool.unlimited()))
              .config(EngineConfig.builder().clock(new MovableClock(monthAgo)).build())
              .build();
      engine.execute(
          Invocation.of(
              ACME, OperationKey.of("op-1"), "create-note", Json.parse("{\"title\":\"a\"}")));
    }

    String[] refused =
        runCapturingErr("sweep", "--db", file.toString(), "--tombstone-window", "7d");

    assertThat(refused[0]).isEqualTo("1");
    assertThat(refused[1]).contains("differs from the ledger's PT720H");
    try (JdbcLedgerStore store = open(file)) {
      assertThat(store.find(ACME, OperationKey.of("op-1"))).isPresent();
    }

    assertThat(Main.run("sweep", "--db", file.toString())).isZero();
    try (JdbcLedgerStore store = open(file)) {
      Tombstone tombstone = store.findTombstone(ACME, OperationKey.of("op-1")).orElseThrow();
      assertThat(tombstone.until()).isEqualTo(monthAgo.plus(Duration.ofDays(37)));
    }
  }

  @Test
  void aSharedRateLimitIsRefusedOnSqlite() {
    String[] refused =
        runCapturingErr(
            "serve",
            "--db",
            dir.resolve("ledger.db").toString(),
            "--port",
            "0",
            "--rate-limit-scope",
            "shared");

    assertThat(refused[0]).isEqualTo("1");
    assertThat(refused[1]).contains("a shared rate limit needs PostgreSQL");
  }

  @Test
  void retentionOverridesAreToolEqualsDuration() {
    RetentionOptions.OverrideConverter converter = new RetentionOptions.OverrideConverter();

    assertThat(converter.convert("create-note=30d"))
        .isEqualTo(new RetentionOptions.ToolRetention("create-note", Duration.ofDays(30)));
    assertThatThrownBy(() -> converter.convert("create-note"))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("TOOL=DURATION");
    assertThatThrownBy(() -> converter.convert("create-note=0s"))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("positive");
    assertThat(Main.run("serve", "--retention", "create-note")).isEqualTo(2);
  }

  @Test
  void ratesAreNPerSecondMinuteOrHourOrOff() {
    LimitOptions.RateConverter converter = new LimitOptions.RateConverter();

    assertThat(converter.convert("100/s")).isEqualTo(RateLimit.perSecond(100));
    assertThat(converter.convert("600/m")).isEqualTo(new RateLimit(600, Duration.ofMinutes(1)));
    assertThat(converter.convert("5000/h")).isEqualTo(new RateLimit(5000, Duration.ofHours(1)));
    assertThat(converter.convert("off")).isNull();
    assertThatThrownBy(() -> converter.convert("fast"))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("100/s");
    assertThatThrownBy(() -> converter.convert("0/s")).isInstanceOf(TypeConversionException.class);
  }
}
