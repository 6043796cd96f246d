package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.Http.Reply;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.HeldRequests;
import dev.toolledger.testkit.LossyProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Effects outside the ledger's database over HTTP: the claim-perform-record path and its history,
 * an effect that certainly did not happen, an effect whose outcome is unknown, and resolving keys.
 */
class ExternalEffectsHttpTest {
  private static final String MAIL = "/v1/tools/send-mail";
  private static final String TO = "{\"to\":\"ann@example.com\"}";

  @TempDir Path dir;
  MailTool mail;
  Cluster cluster;
  String acme;
  String resolver;

  @BeforeEach
  void start() {
    mail = new MailTool();
    cluster = Cluster.sqlite(dir.resolve("ledger.db"), builder -> builder.tool(mail));
    acme = cluster.token("acme");
    // Explicit resolution takes the resolve scope, which a default token does not have.
    resolver =
        cluster
            .app(0)
            .tokens()
            .issue(TenantId.of("acme"), Scopes.of("read", "resolve"), "operator")
            .token();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  private Reply send(String key) {
    return Http.post(cluster.node(0), MAIL, acme, key, TO);
  }

  @Test
  void performedEffectIsRecordedWithAHistoryThatExplainsIt() {
    Reply first = send("m-1");
    Reply retry = send("m-1");

    assertThat(first.status()).isEqualTo(202);
    assertThat(first.header("Idempotent-Replayed")).isEqualTo("false");
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(mail.sent).hasSize(1);
    String downstreamKey = first.json().get("messageId").asText();
    assertThat(downstreamKey).startsWith("tl2-").doesNotContain("m-1");

    JsonNode lookup = Http.get(cluster.node(0), "/v1/operations/m-1", acme).json();
    assertThat(lookup.get("state").asText()).isEqualTo("COMPLETED");
    JsonNode history = lookup.get("history");
    assertThat(history).hasSize(2);
    assertThat(history.get(0).get("to").asText()).isEqualTo("IN_PROGRESS");
    assertThat(history.get(0).get("cause").asText()).startsWith("claimed");
    assertThat(history.get(1).get("from").asText()).isEqualTo("IN_PROGRESS");
    assertThat(history.get(1).get("to").asText()).isEqualTo("COMPLETED");
    assertThat(history.get(1).get("actor").asText()).isEqualTo("node:node-1");
  }

  @Test
  void effectThatCertainlyDidNotHappenIs503AndTheKeyMayBeRetried() throws Exception {
    mail.next.set(MailTool.Next.REFUSE_BEFORE_SENDING);
    Reply refused = send("m-1");

    assertThat(refused.status()).isEqualTo(503);
    assertThat(refused.problemType()).isEqualTo("https://toolledger.dev/problems/tool-unavailable");
    assertThat(refused.header("Retry-After")).isNotNull();
    assertThat(cluster.count("SELECT COUNT(*) FROM tl_operations")).isZero();

    mail.next.set(MailTool.Next.SEND);
    assertThat(send("m-1").status()).isEqualTo(202);
    assertThat(mail.sent).hasSize(1);
  }

  @Test
  void effectWithAnUnknownOutcomeStaysUnknownAndIsNeverPerformedAgain() throws Exception {
    mail.next.set(MailTool.Next.SEND_THEN_LOSE_THE_ANSWER);
    Reply first = send("m-1");
    mail.next.set(MailTool.Next.SEND);
    Reply retry = send("m-1");

    for (Reply reply : new Reply[] {first, retry}) {
      assertThat(reply.status()).isEqualTo(409);
      assertThat(reply.problemType()).isEqualTo("https://toolledger.dev/problems/outcome-unknown");
    }
    assertThat(mail.sent).hasSize(1);
    JsonNode lookup = Http.get(cluster.node(0), "/v1/operations/m-1", acme).json();
    assertThat(lookup.get("state").asText()).isEqualTo("UNKNOWN");
    assertThat(lookup.get("history").get(1).get("cause").asText())
        .contains("failed with a timeout")
        .doesNotContain("Exception")
        .contains("unknown");
  }

  @Test
  void operatorResolvesAnUnknownOperationAndRetriesReplayTheResolution() throws Exception {
    mail.next.set(MailTool.Next.SEND_THEN_LOSE_THE_ANSWER);
    send("m-1");

    Reply resolved =
        Http.post(
            cluster.node(0),
            "/v1/operations/m-1/resolve",
            resolver,
            null,
            "{\"resolution\":\"COMPLETED\",\"reason\":\"the mail log shows it was sent\","
                + "\"response\":{\"status\":202,\"body\":{\"messageId\":\"from-the-log\"}}}");
    Reply retry = send("m-1");

    assertThat(resolved.status()).isEqualTo(200);
    assertThat(resolved.json().get("resolution").asText()).isEqualTo("resolved");
    assertThat(resolved.json().get("state").asText()).isEqualTo("COMPLETED");
    JsonNode last = resolved.json().get("history").get(resolved.json().get("history").size() - 1);
    assertThat(last.get("from").asText()).isEqualTo("UNKNOWN");
    assertThat(last.get("cause").asText()).contains("the mail log shows it was sent");
    assertThat(last.get("actor").asText()).startsWith("token:");
    assertThat(retry.status()).isEqualTo(202);
    assertThat(retry.json()).isEqualTo(Json.parse("{\"messageId\":\"from-the-log\"}"));
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(mail.sent).hasSize(1);
  }

  @Test
  void explicitResolutionOfAnOperationThatIsNotUnknownIsRefused() {
    send("m-1");

    Reply reply =
        Http.post(
            cluster.node(0),
            "/v1/operations/m-1/resolve",
            resolver,
            null,
            "{\"resolution\":\"NOT_EXECUTED\",\"reason\":\"I think it failed\"}");

    assertThat(reply.status()).isEqualTo(409);
    assertThat(reply.problemType())
        .isEqualTo("https://toolledger.dev/problems/operation-not-resolvable");
  }

  @Test
  void givingUpOnAKeyNeverSeenFencesItAndALateRequestIsRefused() throws Exception {
    HeldRequests network = HeldRequests.posts();
    try (LossyProxy slowNetwork = LossyProxy.start(cluster.node(0), DropPolicy.never(), network)) {
      CompletableFuture<Reply> late =
          CompletableFuture.supplyAsync(
              () -> Http.createNote(slowNetwork.uri(), acme, "op-late", "{\"title\":\"late\"}"));
      assertThat(network.awaitHeld(1, Duration.ofSeconds(30))).isTrue();

      Reply fence = Http.post(cluster.node(0), "/v1/operations/op-late/resolve", acme, null, "");
      network.release();
      Reply lateReply = late.get(30, TimeUnit.SECONDS);

      assertThat(fence.status()).isEqualTo(200);
      assertThat(fence.json().get("resolution").asText()).isEqualTo("fenced");
      assertThat(fence.json().get("state").asText()).isEqualTo("NOT_EXECUTED");
      assertThat(lateReply.status()).isEqualTo(409);
      assertThat(lateReply.problemType())
          .isEqualTo("https://toolledger.dev/problems/operation-not-executed");
      assertThat(cluster.count("SELECT COUNT(*) FROM notes")).isZero();
    }
  }

  @Test
  void givingUpOnAKnownKeyReportsItAndChangesNothing() {
    Reply created = Http.createNote(cluster.node(0), acme, "op-1", "{\"title\":\"t\"}");

    Reply inquiry = Http.post(cluster.node(0), "/v1/operations/op-1/resolve", acme, null, "{}");

    assertThat(inquiry.status()).isEqualTo(200);
    assertThat(inquiry.json().get("resolution").asText()).isEqualTo("current");
    assertThat(inquiry.json().get("response").get("body")).isEqualTo(created.json());
  }

  @Test
  void resolveWithAMalformedBodyIs400AndChangesNothing() throws Exception {
    // With the resolve scope: without it the answer is 403 before the body is looked at.
    Reply reply =
        Http.post(
            cluster.node(0),
            "/v1/operations/op-1/resolve",
            resolver,
            null,
            "{\"resolution\":\"MAYBE\",\"reason\":\"x\"}");

    assertThat(reply.status()).isEqualTo(400);
    assertThat(cluster.count("SELECT COUNT(*) FROM tl_operations")).isZero();
  }
}
