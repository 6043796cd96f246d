package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.server.Http.Reply;
import dev.toolledger.server.auth.OperatorAuthenticator;
import dev.toolledger.server.console.ConsoleServlet;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's JSON endpoints over HTTP: only the operator token opens them; they count and list
 * operations across tenants; a resolution is recorded with the operator as its actor.
 */
class ConsoleApiTest {
  static final String OPERATOR = "operator-secret-for-tests-0123456789";

  @TempDir Path dir;
  MailTool mail = new MailTool();
  Cluster cluster;
  String acme;

  @BeforeEach
  void start() {
    cluster =
        Cluster.sqlite(
            dir.resolve("ledger.db"),
            builder -> builder.tool(mail).operators(OperatorAuthenticator.sharedSecret(OPERATOR)));
    acme = cluster.token("acme");
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** A GET of the console API by the operator, with the key in its header. */
  Reply operatorGet(String path, String key) {
    return Http.send(
        HttpRequest.newBuilder(cluster.node(0).resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + OPERATOR)
            .header(ConsoleServlet.KEY_HEADER, key)
            .GET()
            .build());
  }

  Reply unknownMail(String key) {
    mail.next.set(MailTool.Next.SEND_THEN_LOSE_THE_ANSWER);
    return Http.post(cluster.node(0), "/v1/tools/send-mail", acme, key, "{\"to\":\"a@b.c\"}");
  }

  @Test
  void onlyTheOperatorTokenOpensTheApiAndThePageHoldsNoData() {
    Reply anonymous = Http.get(cluster.node(0), "/console/api/summary", null);
    Reply tenant = Http.get(cluster.node(0), "/console/api/summary", acme);
    Reply operator = Http.get(cluster.node(0), "/console/api/summary", OPERATOR);
    Reply page = Http.get(cluster.node(0), "/console/", null);

    assertThat(anonymous.status()).isEqualTo(401);
    assertThat(tenant.status()).isEqualTo(401);
    assertThat(operator.status()).isEqualTo(200);
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.header("Content-Security-Policy")).contains("script-src 'self'");
    assertThat(page.header("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(page.body()).contains("console.js").doesNotContain("acme");
  }

  @Test
  void anOperatorScopedTokenOpensTheConsoleIsNamedInTheHistoryAndStopsWorkingWhenRevoked() {
    var issued = cluster.app(0).tokens().issueOperator("alice");
    String allScopesTenant =
        cluster.app(0).tokens().issue(TenantId.of("acme"), Scopes.tenantAll(), "wide").token();
    unknownMail("mail-by-token");

    Reply summary = Http.get(cluster.node(0), "/console/api/summary", issued.token());
    Reply wideTenant = Http.get(cluster.node(0), "/console/api/summary", allScopesTenant);
    Reply resolved =
        Http.send(
            HttpRequest.newBuilder(cluster.node(0).resolve("/console/api/resolve?tenant=acme"))
                .header("Authorization", "Bearer " + issued.token())
                .header(ConsoleServlet.KEY_HEADER, "mail-by-token")
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"resolution\":\"NOT_EXECUTED\",\"reason\":\"checked\"}"))
                .build());
    cluster.app(0).tokens().revoke(issued.record().id());
    Reply afterRevoke = Http.get(cluster.node(0), "/console/api/summary", issued.token());
    Reply tenantApi = Http.get(cluster.node(0), "/v1/operations/mail-by-token", issued.token());

    assertThat(summary.status()).as(summary.body()).isEqualTo(200);
    assertThat(wideTenant.status()).isEqualTo(401);
    assertThat(resolved.status()).as(resolved.body()).isEqualTo(200);
    JsonNode history = resolved.json().get("history");
    assertThat(history.get(history.size() - 1).get("actor").asText())
        .isEqualTo("operator:token:" + issued.record().id());
    assertThat(afterRevoke.status()).isEqualTo(401);
    assertThat(tenantApi.status()).isIn(401, 403);
  }

  @Test
  void summaryCountsByStateAndToolAndListsWhatNeedsAttention() {
    Http.createNote(cluster.node(0), acme, "note-1", "{\"title\":\"a\"}");
    unknownMail("mail-1");

    JsonNode summary = Http.get(cluster.node(0), "/console/api/summary", OPERATOR).json();

    assertThat(summary.at("/attention/unknown").asLong()).isEqualTo(1);
    assertThat(summary.at("/unknown/0/key").asText()).isEqualTo("mail-1");
    assertThat(summary.at("/unknown/0/tenant").asText()).isEqualTo("acme");
    assertThat(summary.get("counts").toString())
        .contains("{\"state\":\"COMPLETED\",\"tool\":\"create-note\",\"count\":1}")
        .contains("{\"state\":\"UNKNOWN\",\"tool\":\"send-mail\",\"count\":1}");
  }

  @Test
  void searchFindsAKeyInEveryTenant() {
    String globex = cluster.token("globex");
    Http.createNote(cluster.node(0), acme, "same-key", "{\"title\":\"a\"}");
    Http.createNote(cluster.node(0), globex, "same-key", "{\"title\":\"b\"}");

    JsonNode found = operatorGet("/console/api/operations", "same-key").json();
    JsonNode one = operatorGet("/console/api/operations?tenant=globex", "same-key").json();

    assertThat(found.get("operations")).hasSize(2);
    assertThat(one.get("operations")).hasSize(1);
    assertThat(one.at("/operations/0/tenant").asText()).isEqualTo("globex");
  }

  @Test
  void resolvingAnUnknownOperationRecordsTheOperatorAndRetriesHearIt() {
    String key = "mail+/x?1";
    unknownMail(key);

    Reply resolved =
        Http.send(
            HttpRequest.newBuilder(cluster.node(0).resolve("/console/api/resolve?tenant=acme"))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + OPERATOR)
                .header(ConsoleServlet.KEY_HEADER, key)
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"resolution\":\"NOT_EXECUTED\",\"reason\":\"not in the mail log\"}"))
                .build());
    Reply again =
        Http.send(
            HttpRequest.newBuilder(cluster.node(0).resolve("/console/api/resolve?tenant=acme"))
                .header("Authorization", "Bearer " + OPERATOR)
                .header(ConsoleServlet.KEY_HEADER, key)
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"resolution\":\"NOT_EXECUTED\",\"reason\":\"twice\"}"))
                .build());
    Reply retry =
        Http.post(cluster.node(0), "/v1/tools/send-mail", acme, key, "{\"to\":\"a@b.c\"}");

    assertThat(resolved.status()).as(resolved.body()).isEqualTo(200);
    assertThat(resolved.json().get("state").asText()).isEqualTo("NOT_EXECUTED");
    JsonNode history = resolved.json().get("history");
    JsonNode last = history.get(history.size() - 1);
    assertThat(last.get("actor").asText()).isEqualTo("operator:shared-secret");
    assertThat(last.get("cause").asText()).contains("not in the mail log");
    assertThat(again.status()).isEqualTo(409);
    assertThat(retry.problemType())
        .isEqualTo("https://toolledger.dev/problems/operation-not-executed");
    assertThat(mail.sent).hasSize(1);
  }

  @Test
  void aKeyInAConsoleUrlIsRefusedAndChangesNothing() {
    unknownMail("order-42");

    Reply search = Http.get(cluster.node(0), "/console/api/operations?key=order-42", OPERATOR);
    Reply show =
        Http.get(cluster.node(0), "/console/api/operation?tenant=acme&key=order-42", OPERATOR);
    Reply resolve =
        Http.send(
            HttpRequest.newBuilder(
                    cluster.node(0).resolve("/console/api/resolve?tenant=acme&key=order-42"))
                .header("Authorization", "Bearer " + OPERATOR)
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"resolution\":\"NOT_EXECUTED\",\"reason\":\"checked\"}"))
                .build());
    Reply missing = Http.get(cluster.node(0), "/console/api/operation?tenant=acme", OPERATOR);

    for (Reply refused : java.util.List.of(search, show, resolve)) {
      assertThat(refused.status()).isEqualTo(400);
      assertThat(refused.problemType())
          .isEqualTo("https://toolledger.dev/problems/invalid-parameters");
      assertThat(refused.json().get("detail").asText()).contains("Operation-Key header");
    }
    assertThat(missing.status()).isEqualTo(400);
    assertThat(missing.json().get("detail").asText()).contains("Operation-Key header");
    assertThat(
            operatorGet("/console/api/operation?tenant=acme", "order-42")
                .json()
                .get("state")
                .asText())
        .isEqualTo("UNKNOWN");
  }

  @Test
  void anOperationShowsTheKeyedHashItsLogLinesCarry() {
    unknownMail("order-42");

    JsonNode shown = operatorGet("/console/api/operation?tenant=acme", "order-42").json();

    String expected =
        cluster.app(0).store().keyHasher().hash(TenantId.of("acme"), OperationKey.of("order-42"));
    assertThat(shown.get("logKey").asText()).isEqualTo(expected).matches("[0-9a-f]{16}");
    assertThat(
            cluster
                .app(0)
                .engine()
                .keyHasher()
                .hash(TenantId.of("acme"), OperationKey.of("order-42")))
        .isEqualTo(expected);
  }

  @Test
  void aConsoleWithoutOperatorsSaysHowToSetOneUp() throws Exception {
    try (Cluster bare = Cluster.sqlite(dir.resolve("bare.db"), builder -> builder)) {
      Reply refused = Http.get(bare.node(0), "/console/api/summary", "anything-at-all-really");

      assertThat(refused.status()).isEqualTo(401);
      assertThat(refused.json().get("detail").asText()).contains("TOOLLEDGER_OPERATOR_TOKEN");
    }
  }
}
