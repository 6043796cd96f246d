package dev.toolledger.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.journal.Action;
import dev.toolledger.client.journal.ActionConflictException;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.client.journal.ActionStatus;
import dev.toolledger.client.journal.JournalEntry;
import dev.toolledger.client.journal.SqliteActionJournal;
import dev.toolledger.client.retry.Retrier;
import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.client.retry.RetryResult;
import dev.toolledger.client.retry.Sleeper;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.testkit.LossyProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The client against a real server over real sockets, with a real journal file. */
class ToolLedgerClientTest {
  private static final JsonNode NOTE = Json.parse("{\"title\":\"Example note\"}");

  @TempDir Path dir;
  TestServer server;
  String token;
  ActionJournal journal;

  @BeforeEach
  void start() {
    server = TestServer.start(dir);
    token = server.token("acme");
    journal = ActionJournal.sqlite(dir.resolve("journal.db"));
  }

  @AfterEach
  void stop() {
    journal.close();
    server.close();
  }

  private static RetryPolicy fast() {
    return RetryPolicy.builder()
        .maxAttempts(3)
        .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
        .deadline(Duration.ofSeconds(20))
        .build();
  }

  private ToolLedgerClient client(URI base) {
    return ToolLedgerClient.builder()
        .baseUri(base)
        .token(token)
        .journal(journal)
        .retryPolicy(fast())
        .build();
  }

  @Test
  void newActionIsSentOnceWithTheJournalsKeyAndItsResponseIsJournaled() throws Exception {
    RecordingPolicy seen = RecordingPolicy.forwardAll();
    try (LossyProxy proxy = LossyProxy.start(server.uri(), seen)) {
      Outcome outcome = client(proxy.uri()).execute("wf", "s1", "create-note", NOTE);

      Outcome.Completed completed = (Outcome.Completed) outcome;
      assertThat(completed.status()).isEqualTo(201);
      assertThat(completed.replayed()).isFalse();
      assertThat(completed.isSuccess()).isTrue();
      assertThat(completed.body().get("title").asText()).isEqualTo("Example note");
      JournalEntry entry = journal.find("wf", "s1").orElseThrow();
      assertThat(entry.key()).isEqualTo(outcome.key());
      assertThat(entry.status()).isEqualTo(ActionStatus.COMPLETED);
      assertThat(Json.parse(entry.response().orElseThrow().body())).isEqualTo(completed.body());
      assertThat(server.holdsKey(outcome.key().value())).isTrue();
      assertThat(seen.posts()).isEqualTo(1);
      assertThat(seen.gets()).isZero();
      assertThat(server.notes()).isEqualTo(1);
    }
  }

  @Test
  void answeredStepIsAnsweredAgainFromTheJournalWithoutARequest() throws Exception {
    RecordingPolicy seen = RecordingPolicy.forwardAll();
    try (LossyProxy proxy = LossyProxy.start(server.uri(), seen)) {
      ToolLedgerClient client = client(proxy.uri());
      Outcome first = client.execute("wf", "s1", "create-note", NOTE);

      Outcome again = client.execute("wf", "s1", "create-note", NOTE);

      assertThat(again).isInstanceOf(Outcome.Completed.class);
      assertThat(again.key()).isEqualTo(first.key());
      assertThat(((Outcome.Completed) again).replayed()).isTrue();
      assertThat(((Outcome.Completed) again).body()).isEqualTo(((Outcome.Completed) first).body());
      assertThat(seen.exchanges).hasSize(1);
      assertThat(server.notes()).isEqualTo(1);
    }
  }

  @Test
  void sameTitleUnderANewStepIsANewNote() throws Exception {
    ToolLedgerClient client = client(server.uri());

    Outcome first = client.execute("wf", "s1", "create-note", NOTE);
    Outcome second = client.execute("wf", "s2", "create-note", NOTE);

    assertThat(second.key()).isNotEqualTo(first.key());
    assertThat(((Outcome.Completed) second).replayed()).isFalse();
    assertThat(server.notes()).isEqualTo(2);
  }

  @Test
  void otherParametersForARecordedStepAreRefusedBeforeAnythingIsSent() throws Exception {
    RecordingPolicy seen = RecordingPolicy.forwardAll();
    try (LossyProxy proxy = LossyProxy.start(server.uri(), seen)) {
      ToolLedgerClient client = client(proxy.uri());
      client.execute("wf", "s1", "create-note", NOTE);

      assertThatThrownBy(
              () ->
                  client.execute(
                      "wf", "s1", "create-note", Json.parse("{\"title\":\"Changed title\"}")))
          .isInstanceOf(ActionConflictException.class);
      assertThat(seen.exchanges).hasSize(1);
      assertThat(server.notes()).isEqualTo(1);
    }
  }

  @Test
  void definitiveRefusalsAreRejectedAfterOneRequestAndJournaledAsRejected() throws Exception {
    RecordingPolicy seen = RecordingPolicy.forwardAll();
    try (LossyProxy proxy = LossyProxy.start(server.uri(), seen)) {
      ToolLedgerClient client = client(proxy.uri());
      ToolLedgerClient badToken =
          ToolLedgerClient.builder()
              .baseUri(proxy.uri())
              .token("tl_000000000000_not-a-token")
              .journal(journal)
              .retryPolicy(fast())
              .build();

      record Case(
          ToolLedgerClient client, String step, String tool, String params, ProblemType type) {}
      List<Case> cases =
          List.of(
              new Case(
                  client,
                  "invalid",
                  "create-note",
                  "{\"title\":\"\"}",
                  ProblemType.INVALID_PARAMETERS),
              new Case(
                  badToken,
                  "unauthorized",
                  "create-note",
                  "{\"title\":\"x\"}",
                  ProblemType.UNAUTHORIZED),
              new Case(client, "no-such-tool", "launch-rocket", "{}", ProblemType.UNKNOWN_TOOL));
      for (Case c : cases) {
        long before = seen.exchanges.size();

        Outcome outcome = c.client().execute("wf", c.step(), c.tool(), Json.parse(c.params()));

        assertThat(outcome).as(c.step()).isInstanceOf(Outcome.Rejected.class);
        ProblemDetails problem = ((Outcome.Rejected) outcome).problem();
        assertThat(problem.knownType()).as(c.step()).contains(c.type());
        assertThat(problem.status()).as(c.step()).isEqualTo(c.type().status());
        assertThat(seen.exchanges.size() - before).as(c.step()).isEqualTo(1);
        assertThat(journal.find("wf", c.step()).orElseThrow().status())
            .isEqualTo(ActionStatus.REJECTED);

        Outcome again = c.client().execute("wf", c.step(), c.tool(), Json.parse(c.params()));
        assertThat(again).isEqualTo(outcome);
        assertThat(seen.exchanges.size() - before).as(c.step() + " again").isEqualTo(1);
      }
      assertThat(server.notes()).isZero();
      assertThat(server.operations()).isZero();
    }
  }

  @Test
  void keyReusedWithOtherParametersIsRejectedWith422AfterOneAttempt() throws Exception {
    RecordingPolicy seen = RecordingPolicy.forwardAll();
    try (LossyProxy proxy = LossyProxy.start(server.uri(), seen)) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      HttpResponse<String> first =
          http.send(
              HttpRequest.newBuilder(server.uri().resolve("/v1/tools/create-note"))
                  .header("Authorization", "Bearer " + token)
                  .header("Idempotency-Key", "op-reused")
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"First\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(first.statusCode()).isEqualTo(201);
      HttpTransport transport = new HttpTransport(http, proxy.uri(), token, Clock.systemUTC());
      Action other = Action.of("wf", "s1", "create-note", Json.parse("{\"title\":\"Other\"}"));

      RetryResult<Outcome> result =
          Retrier.of(fast())
              .run(
                  (n, remaining) -> transport.send(OperationKey.of("op-reused"), other, remaining));

      assertThat(result.attempts()).isEqualTo(1);
      Outcome outcome = ((RetryResult.Answered<Outcome>) result).value();
      assertThat(((Outcome.Rejected) outcome).problem().knownType())
          .contains(ProblemType.KEY_REUSED);
      assertThat(seen.posts()).isEqualTo(1);
      assertThat(server.notes()).isEqualTo(1);
    }
  }

  @Test
  void recordedBusinessErrorIsCompletedAndNotRetried() throws Exception {
    server.close();
    server = TestServer.start(dir.resolve("quota"), 0, Duration.ofSeconds(5));
    token = server.token("acme");
    RecordingPolicy seen = RecordingPolicy.forwardAll();
    try (LossyProxy proxy = LossyProxy.start(server.uri(), seen)) {
      Outcome outcome = client(proxy.uri()).execute("wf", "s1", "create-note", NOTE);

      Outcome.Completed completed = (Outcome.Completed) outcome;
      assertThat(completed.status()).isEqualTo(409);
      assertThat(completed.isSuccess()).isFalse();
      assertThat(completed.body().get("type").asText())
          .isEqualTo("https://toolledger.dev/problems/notes/quota-exceeded");
      assertThat(seen.exchanges).hasSize(1);
      assertThat(journal.find("wf", "s1").orElseThrow().status()).isEqualTo(ActionStatus.COMPLETED);
    }
  }

  @Test
  void busyLedgerIsRetriedAfterItsRetryAfterUntilTheActionCompletes() throws Exception {
    server.close();
    server = TestServer.start(dir.resolve("busy"), Long.MAX_VALUE, Duration.ofMillis(100));
    token = server.token("acme");
    List<Duration> sleeps = new CopyOnWriteArrayList<>();
    RetryPolicy policy =
        fast().toBuilder()
            .maxAttempts(100)
            .deadline(Duration.ofSeconds(60))
            .sleeper(
                d -> {
                  sleeps.add(d);
                  Sleeper.system().sleep(d);
                })
            .build();
    RecordingPolicy seen = RecordingPolicy.forwardAll();
    try (LossyProxy proxy = LossyProxy.start(server.uri(), seen);
        Connection other = DriverManager.getConnection("jdbc:sqlite:" + server.database);
        Statement lock = other.createStatement()) {
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .baseUri(proxy.uri())
              .token(token)
              .journal(journal)
              .retryPolicy(policy)
              .build();
      lock.execute("BEGIN IMMEDIATE");
      CompletableFuture<Outcome> call =
          CompletableFuture.supplyAsync(() -> client.execute("wf", "s1", "create-note", NOTE));
      while (seen.withStatus(503) < 1 && !call.isDone()) {
        Thread.sleep(10);
      }
      lock.execute("ROLLBACK");

      Outcome outcome = call.get(60, TimeUnit.SECONDS);

      assertThat(seen.withStatus(503)).isGreaterThanOrEqualTo(1);
      assertThat(outcome).isInstanceOf(Outcome.Completed.class);
      assertThat(((Outcome.Completed) outcome).replayed()).isFalse();
      assertThat(sleeps).isNotEmpty().allMatch(d -> d.compareTo(Duration.ofSeconds(1)) >= 0);
      assertThat(server.notes()).isEqualTo(1);
    }
  }

  @Test
  void serverDownEndsUnknownAndResumeCompletesItWithTheSameKeyOnceItIsBack() throws Exception {
    ToolLedgerClient client = client(server.uri());
    server.stop();

    Outcome outcome = client.execute("wf", "s1", "create-note", NOTE);

    assertThat(outcome).isInstanceOf(Outcome.Unknown.class);
    assertThat(((Outcome.Unknown) outcome).reason()).contains("transport failure");
    assertThat(journal.find("wf", "s1").orElseThrow().status()).isEqualTo(ActionStatus.UNKNOWN);
    assertThat(journal.unfinished("wf"))
        .extracting(JournalEntry::key)
        .containsExactly(outcome.key());
    assertThat(client.lookup(outcome.key())).isInstanceOf(LookupResult.Unavailable.class);

    server.startAgain();
    assertThat(client.lookup(outcome.key())).isEqualTo(new LookupResult.NotFound(outcome.key()));
    List<ResumedAction> resumed = client.resume("wf");

    assertThat(resumed)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.key()).isEqualTo(outcome.key());
              assertThat(r.outcome()).isInstanceOf(Outcome.Completed.class);
              assertThat(((Outcome.Completed) r.outcome()).replayed()).isFalse();
            });
    assertThat(journal.unfinished("wf")).isEmpty();
    assertThat(server.holdsKey(outcome.key().value())).isTrue();
    assertThat(server.notes()).isEqualTo(1);
  }

  @Test
  void responseLostOnEveryAttemptIsUnknownAndResumeCompletesItByLookupWithoutPosting()
      throws Exception {
    RecordingPolicy seen = new RecordingPolicy(exchange -> exchange.method().equals("POST"));
    try (LossyProxy proxy = LossyProxy.start(server.uri(), seen)) {
      ToolLedgerClient client = client(proxy.uri());

      Outcome outcome = client.execute("wf", "s1", "create-note", NOTE);

      assertThat(outcome).isInstanceOf(Outcome.Unknown.class);
      assertThat(((Outcome.Unknown) outcome).reason()).contains("attempt limit reached after 3");
      assertThat(seen.posts()).isEqualTo(3);
      assertThat(server.notes()).as("the first attempt committed").isEqualTo(1);

      LookupResult found = client.lookup(outcome.key());
      assertThat(found).isInstanceOf(LookupResult.Found.class);
      LookupResult.Found record = (LookupResult.Found) found;
      assertThat(record.state()).isEqualTo(OperationState.COMPLETED);
      assertThat(record.tool()).contains("create-note");
      assertThat(record.response().orElseThrow().status()).isEqualTo(201);
      assertThat(record.completedAt()).isPresent();

      List<ResumedAction> resumed = client.resume("wf");

      Outcome.Completed completed = (Outcome.Completed) resumed.get(0).outcome();
      assertThat(completed.key()).isEqualTo(outcome.key());
      assertThat(completed.replayed()).isTrue();
      assertThat(completed.body().get("title").asText()).isEqualTo("Example note");
      assertThat(seen.posts()).as("resume only looked the key up").isEqualTo(3);
      assertThat(journal.find("wf", "s1").orElseThrow().status()).isEqualTo(ActionStatus.COMPLETED);
      assertThat(server.notes()).isEqualTo(1);
    }
  }

  @Test
  void plannedButNeverSentActionIsSentByResumeWithItsRecordedKey() throws Exception {
    OperationKey planned = journal.record(Action.of("wf", "s1", "create-note", NOTE)).entry().key();

    List<ResumedAction> resumed = client(server.uri()).resume("wf");

    assertThat(resumed)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.key()).isEqualTo(planned);
              assertThat(((Outcome.Completed) r.outcome()).replayed()).isFalse();
            });
    assertThat(server.holdsKey(planned.value())).isTrue();
    assertThat(server.notes()).isEqualTo(1);
  }

  @Test
  void resumeDoesNotResendAnUnknownKeyRecordedBeforeTheResendWindow() throws Exception {
    Instant recorded = Instant.parse("2026-10-14T06:00:00Z");
    journal.close();
    journal =
        SqliteActionJournal.builder(dir.resolve("old-journal.db"))
            .clock(Clock.fixed(recorded, ZoneOffset.UTC))
            .open();
    OperationKey key = journal.record(Action.of("wf", "s1", "create-note", NOTE)).entry().key();
    RecordingPolicy seen = RecordingPolicy.forwardAll();
    try (LossyProxy proxy = LossyProxy.start(server.uri(), seen)) {
      ToolLedgerClient client =
          ToolLedgerClient.builder()
              .baseUri(proxy.uri())
              .token(token)
              .journal(journal)
              .retryPolicy(fast())
              .clock(Clock.fixed(recorded.plus(Duration.ofHours(25)), ZoneOffset.UTC))
              .build();

      List<ResumedAction> resumed = client.resume("wf");

      assertThat(resumed.get(0).outcome()).isInstanceOf(Outcome.Unknown.class);
      assertThat(((Outcome.Unknown) resumed.get(0).outcome()).reason())
          .contains("beyond the resend window");
      assertThat(seen.posts()).isZero();
      assertThat(journal.find(key).orElseThrow().status()).isEqualTo(ActionStatus.UNKNOWN);
      assertThat(server.notes()).isZero();
    }
  }

  @Test
  void logsNeverCarryTheTokenTheRawKeyOrTheParameters() throws Exception {
    Logger clientLogger = (Logger) LoggerFactory.getLogger("dev.toolledger.client");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    clientLogger.addAppender(appender);
    ch.qos.logback.classic.Level level = clientLogger.getLevel();
    clientLogger.setLevel(ch.qos.logback.classic.Level.DEBUG);
    try {
      ToolLedgerClient client = client(server.uri());
      JsonNode secret = Json.parse("{\"title\":\"patient 4711 diagnosis\"}");
      server.stop();
      Outcome outcome = client.execute("wf", "s1", "create-note", secret);
      server.startAgain();
      client.resume("wf");

      assertThat(appender.list).isNotEmpty();
      for (ILoggingEvent event : appender.list) {
        String line =
            event.getFormattedMessage()
                + (event.getThrowableProxy() == null
                    ? ""
                    : ThrowableProxyUtil.asString(event.getThrowableProxy()));
        assertThat(line)
            .doesNotContain(token)
            .doesNotContain(outcome.key().value())
            .doesNotContain("patient 4711");
      }
      assertThat(appender.list)
          .anySatisfy(e -> assertThat(e.getFormattedMessage()).contains(LogKeys.of(outcome.key())));
    } finally {
      clientLogger.detachAppender(appender);
      clientLogger.setLevel(level);
    }
  }

  @Test
  void builderNamesMissingAndConflictingOptions() {
    assertThatThrownBy(() -> ToolLedgerClient.builder().baseUri(server.uri()).token(token).build())
        .hasMessageContaining("journal");
    assertThatThrownBy(() -> ToolLedgerClient.builder().token(token).journal(journal).build())
        .hasMessageContaining("baseUri");
    assertThatThrownBy(
            () -> ToolLedgerClient.builder().baseUri(server.uri()).journal(journal).build())
        .hasMessageContaining("token");
    assertThatThrownBy(
            () ->
                ToolLedgerClient.builder()
                    .baseUri(URI.create("ftp://example.org"))
                    .token(token)
                    .journal(journal)
                    .build())
        .hasMessageContaining("baseUri");
    assertThatThrownBy(
            () ->
                ToolLedgerClient.builder()
                    .baseUri(server.uri())
                    .token(token)
                    .journal(journal)
                    .attemptTimeout(Duration.ZERO)
                    .build())
        .hasMessageContaining("attemptTimeout");
    assertThatThrownBy(
            () ->
                ToolLedgerClient.builder()
                    .baseUri(server.uri())
                    .token(token)
                    .journal(journal)
                    .httpClient(HttpClient.newHttpClient())
                    .connectTimeout(Duration.ofSeconds(1))
                    .build())
        .hasMessageContaining("connectTimeout");
    ActionTransport none =
        new ActionTransport() {
          @Override
          public dev.toolledger.client.retry.AttemptResult<Outcome> send(
              OperationKey key, Action action, Duration timeout) {
            throw new UnsupportedOperationException();
          }

          @Override
          public dev.toolledger.client.retry.AttemptResult<LookupResult> lookup(
              OperationKey key, Duration timeout) {
            throw new UnsupportedOperationException();
          }
        };
    assertThatThrownBy(
            () ->
                ToolLedgerClient.builder()
                    .transport(none)
                    .baseUri(server.uri())
                    .journal(journal)
                    .build())
        .hasMessageContaining("transport replaces baseUri");
  }
}
