package dev.toolledger.cli.demo;

import dev.toolledger.api.TransactionalTool;
import dev.toolledger.core.outbox.OutboxState;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.server.ToolLedgerApp;
import dev.toolledger.server.attachments.AttachmentService;
import dev.toolledger.server.plugins.PluginRegistration;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.FailAfterEffect;
import dev.toolledger.testkit.LossyProxy;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * The seed article's story, told against a real ToolLedger server on a temporary SQLite file: a
 * response lost after the commit, the retry replayed, a changed retry refused, a failure between
 * effect and record rolled back, a new action with the same content, a second tenant with the same
 * key, and a restart. Every step checks what it claims.
 */
public final class DemoScript {
  private static final String CREATE = "/v1/tools/create-note";
  private static final String NOTE =
      "{\"title\":\"Example note\",\"attachment\":\"meeting minutes\"}";

  private final PrintStream out;
  private final boolean keep;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final AtomicBoolean injectFailure = new AtomicBoolean();
  private int failures;
  private JdbcLedgerStore store;
  private ToolLedgerApp app;
  private AttachmentService attachments;
  private LossyProxy attachmentsNetwork;

  public DemoScript(PrintStream out, boolean keep) {
    this.out = out;
    this.keep = keep;
  }

  /** Plays the story; true when every check held. */
  public boolean run() throws Exception {
    Path dir = Files.createTempDirectory("toolledger-demo-");
    Path database = dir.resolve("demo.db");
    try {
      attachments = AttachmentService.start(dir.resolve("attachments.db"), "127.0.0.1", 0);
      // The network between the relay and the attachment service loses one acknowledgement.
      attachmentsNetwork =
          LossyProxy.start(attachments.uri(), DropPolicy.next(1, DropPolicy.posts()));
      start(database);
      out.println("ToolLedger demo");
      out.println("  server  " + app.uri());
      out.println("  ledger  " + database);
      out.println(
          "  attachment service " + attachments.endpoint() + " (its own database and inbox)");
      String alice = app.tokens().issue(dev.toolledger.api.TenantId.of("demo-a"), "demo").token();
      String bob = app.tokens().issue(dev.toolledger.api.TenantId.of("demo-b"), "demo").token();
      out.println("  tenants demo-a and demo-b, each with its own bearer token");

      step(1, "An agent creates a note. The server commits it, but the response is lost.");
      String firstBody;
      try (LossyProxy network =
          LossyProxy.start(app.uri(), DropPolicy.next(1, DropPolicy.posts()))) {
        show("demo-a", "operation-1", NOTE);
        try {
          post(network.uri(), alice, "operation-1", NOTE);
          check(false, "the response should have been lost");
        } catch (IOException e) {
          out.println(
              "    <- no response: "
                  + e.getClass().getSimpleName()
                  + " (the agent sees a timeout)");
        }
        check(network.dropped() == 1, "the server answered and the network dropped the answer");
        check(count("notes") == 1, "the server has 1 note, which the agent cannot know");
      }

      step(2, "The agent retries with the same operation key.");
      show("demo-a", "operation-1", NOTE);
      HttpResponse<String> retry = post(app.uri(), alice, "operation-1", NOTE);
      print(retry);
      check(retry.statusCode() == 201, "201 Created, the stored response");
      check(replayed(retry).equals("true"), "Idempotent-Replayed: true, nothing executed again");
      check(count("notes") == 1, "still 1 note");
      firstBody = retry.body();

      step(3, "A retry under the same key but with a changed title is a conflict, not a replay.");
      show(
          "demo-a",
          "operation-1",
          "{\"title\":\"Changed title\",\"attachment\":\"meeting minutes\"}");
      HttpResponse<String> changed =
          post(
              app.uri(),
              alice,
              "operation-1",
              "{\"title\":\"Changed title\",\"attachment\":\"meeting minutes\"}");
      print(changed);
      check(changed.statusCode() == 422, "422 with type .../idempotency-key-reused");
      check(count("notes") == 1, "still 1 note");

      step(4, "A failure between the note's insert and its operation record rolls both back.");
      injectFailure.set(true);
      show("demo-a", "operation-fail", "{\"title\":\"Rollback\",\"attachment\":\"draft\"}");
      HttpResponse<String> failed =
          post(
              app.uri(),
              alice,
              "operation-fail",
              "{\"title\":\"Rollback\",\"attachment\":\"draft\"}");
      injectFailure.set(false);
      print(failed);
      check(failed.statusCode() == 500, "500 tool-failed: nothing recorded, safe to retry");
      check(
          count("notes") == 1 && count("tl_operations") == 1 && count("tl_outbox") == 1,
          "no note, no record and no outbox event were left behind");
      HttpResponse<String> lookup = get(app.uri(), alice, "/v1/operations/operation-fail");
      check(lookup.statusCode() == 404, "GET /v1/operations/operation-fail is 404");

      step(5, "The user asks for another note with the same title: a new action gets a new key.");
      show("demo-a", "operation-2", NOTE);
      HttpResponse<String> second = post(app.uri(), alice, "operation-2", NOTE);
      print(second);
      check(second.statusCode() == 201 && replayed(second).equals("false"), "201, executed");
      check(count("notes") == 2, "2 notes: equal content, different intent");

      step(6, "Another tenant uses the first key: keys are scoped by the authenticated tenant.");
      show("demo-b", "operation-1", NOTE);
      HttpResponse<String> other = post(app.uri(), bob, "operation-1", NOTE);
      print(other);
      check(
          other.statusCode() == 201 && replayed(other).equals("false"), "201, executed for demo-b");
      check(count("notes") == 3, "3 notes");
      check(
          count("notes WHERE tenant = 'demo-b'") == 1,
          "demo-b got a note of its own, not demo-a's (note ids are counted per tenant: both are"
              + " number 1)");

      step(7, "The server restarts on the same file; the first key still replays.");
      app.close();
      store.close();
      start(database);
      out.println("    server restarted at " + app.uri());
      show("demo-a", "operation-1", NOTE);
      HttpResponse<String> afterRestart = post(app.uri(), alice, "operation-1", NOTE);
      print(afterRestart);
      check(
          afterRestart.statusCode() == 201 && replayed(afterRestart).equals("true"),
          "201, replayed");
      check(afterRestart.body().equals(firstBody), "the same body as before the restart");

      step(
          8,
          "Each note's attachment was committed with it as an outbox event; a relay delivers them"
              + " to the attachment service.");
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (store.countEvents().get(OutboxState.DELIVERED) < 3 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      out.println(
          "    events delivered: "
              + store.countEvents().get(OutboxState.DELIVERED)
              + ", deliveries received: "
              + attachments.deliveries()
              + ", attachments processed: "
              + attachments.processed());
      check(
          store.countEvents().get(OutboxState.DELIVERED) == 3,
          "3 events, one per note (none for the rolled-back note)");
      check(
          attachments.deliveries() == 4,
          "one acknowledgement was lost, so one event was delivered twice");
      check(
          attachments.processed() == 3 && attachments.duplicateEffects() == 0,
          "the service's inbox deduplicated by event id: 3 effects");

      long notes = count("notes");
      long operations = count("tl_operations");
      out.println();
      out.println(
          "Result: "
              + notes
              + " notes, "
              + operations
              + " operations, "
              + attachments.processed()
              + " attachments processed.");
      check(notes == 3 && operations == 3, "3 notes and 3 operations, as the story says");
    } finally {
      if (app != null) {
        app.close();
      }
      if (store != null) {
        store.close();
      }
      if (attachmentsNetwork != null) {
        attachmentsNetwork.close();
      }
      if (attachments != null) {
        attachments.close();
      }
      if (keep) {
        out.println("Kept the database at " + database);
      } else {
        delete(dir);
      }
    }
    out.println(failures == 0 ? "All checks passed." : failures + " check(s) FAILED.");
    return failures == 0;
  }

  private void start(Path database) {
    store =
        JdbcLedgerStore.sqlite(
            SqliteOptions.builder(database)
                .migrations(PluginRegistration.migrations(NotesTables.schema()))
                .build());
    app =
        ToolLedgerApp.builder(store)
            .serverConfig(
                ServerConfig.builder().port(0).shutdownGrace(Duration.ofSeconds(2)).build())
            .plugin(
                NotesPlugin.serving(
                    NotesTool.unlimited()
                        .withAttachments(attachmentsNetwork.uri().resolve("/v1/attachments"))))
            .relay(
                relay ->
                    relay
                        .pollInterval(Duration.ofMillis(50))
                        .backoff(Duration.ofMillis(50), Duration.ofMillis(500))
                        // The restart in step 7 can stop a relay in the middle of a batch; the
                        // events it had claimed wait for their claim to lapse before the next
                        // relay takes them (60 s by default). A short claim keeps the story short;
                        // deliveries here take milliseconds.
                        .claimLease(Duration.ofSeconds(3)))
            .toolDecorator(
                tool -> new FailAfterEffect((TransactionalTool) tool, injectFailure::get))
            .start();
  }

  private void step(int n, String text) {
    out.println();
    out.println(n + ". " + text);
  }

  private void show(String tenant, String key, String body) {
    out.println(
        "    -> POST " + CREATE + " as " + tenant + ", Idempotency-Key: " + key + ", " + body);
  }

  private void print(HttpResponse<String> response) {
    String flag =
        response
            .headers()
            .firstValue("Idempotent-Replayed")
            .map(v -> ", Idempotent-Replayed: " + v)
            .orElse("");
    String body = response.body();
    if (response.statusCode() >= 400) {
      var problem = Json.parse(body);
      body = "type " + problem.path("type").asText();
    }
    out.println("    <- " + response.statusCode() + flag + ", " + body);
  }

  private void check(boolean ok, String claim) {
    out.println("    [" + (ok ? "ok" : "FAIL") + "] " + claim);
    if (!ok) {
      failures++;
    }
  }

  private static String replayed(HttpResponse<String> response) {
    return response.headers().firstValue("Idempotent-Replayed").orElse("(absent)");
  }

  private HttpResponse<String> post(URI base, String token, String key, String body)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(base.resolve(CREATE))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + token)
            .header("Idempotency-Key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(URI base, String token, String path)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + token)
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private long count(String table) throws Exception {
    try (Connection c = store.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
