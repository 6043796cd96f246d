package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.server.Http.Reply;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Token scopes over HTTP: what a token may call, replay, read and resolve is checked on every
 * request, before anything is recorded, and the answer never depends on whether a key exists.
 */
class TokenScopesHttpTest {
  static final String FORBIDDEN = "https://toolledger.dev/problems/forbidden";
  static final String MAIL = "/v1/tools/send-mail";
  static final String NOTE = "{\"title\":\"milk\"}";

  @TempDir Path dir;
  MailTool mail;
  Cluster cluster;

  @BeforeEach
  void start() {
    mail = new MailTool();
    cluster = Cluster.sqlite(dir.resolve("ledger.db"), node -> node.tool(mail));
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  String token(String... scopes) {
    return cluster.app(0).tokens().issue(TenantId.of("acme"), Scopes.of(scopes), "test").token();
  }

  long operations() throws Exception {
    return cluster.count("SELECT COUNT(*) FROM tl_operations");
  }

  static void assertForbidden(Reply reply) {
    assertThat(reply.status()).isEqualTo(403);
    assertThat(reply.problemType()).isEqualTo(FORBIDDEN);
    assertThat(reply.header("Idempotent-Replayed")).isNull();
  }

  @Test
  void aTokenWithoutTheToolsScopeIsRefusedBeforeAnythingIsRecorded() throws Exception {
    String notesOnly = token("tools:create-note");

    Reply mailCall = Http.post(cluster.node(0), MAIL, notesOnly, "m-1", "{\"to\":\"ann\"}");
    Reply noKeyEither = Http.post(cluster.node(0), MAIL, notesOnly, null, "not even json");

    assertForbidden(mailCall);
    assertForbidden(noKeyEither);
    assertThat(mailCall.json().get("detail").asText()).contains("send-mail");
    assertThat(mail.sent).isEmpty();
    assertThat(operations()).isZero();
    assertThat(Http.createNote(cluster.node(0), notesOnly, "n-1", NOTE).status()).isEqualTo(201);
  }

  @Test
  void aReplayNeedsTheToolsScopeAsMuchAsAFirstCall() throws Exception {
    String writer = token("tools:*", "read");
    String reader = token("read");
    Reply created = Http.createNote(cluster.node(0), writer, "op-1", NOTE);

    Reply replayByReader = Http.createNote(cluster.node(0), reader, "op-1", NOTE);
    Reply lookupByReader = Http.get(cluster.node(0), "/v1/operations/op-1", reader);

    assertForbidden(replayByReader);
    assertThat(lookupByReader.status()).isEqualTo(200);
    assertThat(lookupByReader.json().get("response").get("body")).isEqualTo(created.json());
    assertThat(operations()).isEqualTo(1);
  }

  @Test
  void aToolOutsideTheScopesIsForbiddenWhetherOrNotItExists() {
    String notesOnly = token("tools:create-note");

    Reply existing = Http.post(cluster.node(0), MAIL, notesOnly, "k", "{}");
    Reply missing = Http.post(cluster.node(0), "/v1/tools/no-such-tool", notesOnly, "k", "{}");

    assertForbidden(existing);
    assertForbidden(missing);
    assertThat(
            Http.post(cluster.node(0), "/v1/tools/no-such-tool", token("tools:*"), "k", "{}")
                .problemType())
        .isEqualTo("https://toolledger.dev/problems/unknown-tool");
  }

  @Test
  void toolsListsOnlyWhatTheTokenMayCall() {
    List<String> all = names(Http.get(cluster.node(0), "/v1/tools", token("tools:*")).json());
    List<String> one =
        names(Http.get(cluster.node(0), "/v1/tools", token("tools:send-mail")).json());
    List<String> none = names(Http.get(cluster.node(0), "/v1/tools", token("read")).json());

    assertThat(all).containsExactly("create-note", "send-mail");
    assertThat(one).containsExactly("send-mail");
    assertThat(none).isEmpty();
  }

  static List<String> names(JsonNode tools) {
    List<String> names = new ArrayList<>();
    tools.get("tools").forEach(t -> names.add(t.get("name").asText()));
    return names;
  }

  @Test
  void lookupsAndDataReadsNeedRead() {
    String toolsOnly = token("tools:*");
    Http.createNote(cluster.node(0), toolsOnly, "op-1", NOTE);

    assertForbidden(Http.get(cluster.node(0), "/v1/operations/op-1", toolsOnly));
    assertForbidden(Http.get(cluster.node(0), "/v1/operations/op-never", toolsOnly));
    assertForbidden(Http.get(cluster.node(0), "/v1/notes", toolsOnly));
    assertThat(Http.get(cluster.node(0), "/v1/notes", token("read")).status()).isEqualTo(200);
  }

  @Test
  void givingUpOnAKeyNeedsReadAndAToolsScope() throws Exception {
    assertForbidden(
        Http.post(cluster.node(0), "/v1/operations/op-1/resolve", token("read"), null, "{}"));
    assertForbidden(
        Http.post(cluster.node(0), "/v1/operations/op-1/resolve", token("tools:*"), null, "{}"));
    assertThat(operations()).isZero();

    Reply fenced =
        Http.post(
            cluster.node(0), "/v1/operations/op-1/resolve", token("read", "tools:x"), null, "{}");
    assertThat(fenced.status()).isEqualTo(200);
    assertThat(fenced.json().get("resolution").asText()).isEqualTo("fenced");
  }

  @Test
  void explicitResolutionNeedsResolve() throws Exception {
    String writer = token("tools:*", "read");
    mail.next.set(MailTool.Next.SEND_THEN_LOSE_THE_ANSWER);
    Http.post(cluster.node(0), MAIL, writer, "m-1", "{\"to\":\"ann\"}");
    String resolution = "{\"resolution\":\"NOT_EXECUTED\",\"reason\":\"the log has nothing\"}";

    Reply refused =
        Http.post(cluster.node(0), "/v1/operations/m-1/resolve", writer, null, resolution);
    assertForbidden(refused);
    assertThat(Http.get(cluster.node(0), "/v1/operations/m-1", writer).json().get("state").asText())
        .isEqualTo("UNKNOWN");

    Reply resolved =
        Http.post(
            cluster.node(0), "/v1/operations/m-1/resolve", token("resolve"), null, resolution);
    assertThat(resolved.status()).isEqualTo(200);
    assertThat(resolved.json().get("state").asText()).isEqualTo("NOT_EXECUTED");
  }

  @Test
  void aResolutionIsRefusedForWantOfResolveBeforeItsBodyOrKeyIsValidated() throws Exception {
    String writer = token("tools:*", "read");
    String path = "/v1/operations/m-1/resolve";

    Reply unknownResolution =
        Http.post(cluster.node(0), path, writer, null, "{\"resolution\":\"MAYBE\"}");
    Reply noReason =
        Http.post(cluster.node(0), path, writer, null, "{\"resolution\":\"NOT_EXECUTED\"}");
    Reply notJson = Http.post(cluster.node(0), path, writer, null, "{\"resolution\":");
    Reply notAnObject = Http.post(cluster.node(0), path, writer, null, "[]");
    Reply badKey =
        Http.post(
            cluster.node(0),
            "/v1/operations/%20/resolve",
            writer,
            null,
            "{\"resolution\":\"NOT_EXECUTED\",\"reason\":\"r\"}");

    for (Reply reply : List.of(unknownResolution, noReason, notJson, notAnObject, badKey)) {
      assertForbidden(reply);
      assertThat(reply.json().get("detail").asText()).contains("resolve");
    }
    assertThat(operations()).isZero();
    // With the scope, the same bodies are validated.
    assertThat(
            Http.post(cluster.node(0), path, token("resolve"), null, "{\"resolution\":\"MAYBE\"}")
                .problemType())
        .isEqualTo("https://toolledger.dev/problems/invalid-parameters");
  }

  @Test
  void givingUpIsJudgedByTheBodysShapeBeforeTheKeyIsValidated() throws Exception {
    Reply readOnly =
        Http.post(cluster.node(0), "/v1/operations/%20/resolve", token("read"), null, " { } ");

    assertForbidden(readOnly);
    assertThat(
            Http.post(
                    cluster.node(0),
                    "/v1/operations/%20/resolve",
                    token("read", "tools:*"),
                    null,
                    " { } ")
                .problemType())
        .isEqualTo("https://toolledger.dev/problems/invalid-idempotency-key");
  }

  @Test
  void anOperatorTokenIsRefusedEverywhereOnTheTenantApi() throws Exception {
    String operator = cluster.app(0).tokens().issueOperator("console").token();

    for (Reply reply :
        new Reply[] {
          Http.get(cluster.node(0), "/v1/tools", operator),
          Http.get(cluster.node(0), "/v1/notes", operator),
          Http.get(cluster.node(0), "/v1/operations/op-1", operator),
          Http.createNote(cluster.node(0), operator, "op-1", NOTE),
          Http.post(cluster.node(0), "/v1/operations/op-1/resolve", operator, null, "{}"),
          Http.post(cluster.node(0), "/mcp", operator, null, RAW_INITIALIZE)
        }) {
      assertForbidden(reply);
      assertThat(reply.json().get("detail").asText()).contains("operator");
    }
    assertThat(operations()).isZero();
  }

  static final String RAW_INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
          + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
          + "\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
}
