package dev.toolledger.declarative.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.declarative.Http;
import dev.toolledger.declarative.Http.Reply;
import dev.toolledger.declarative.http.InvoiceService.Next;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A declared http tool behind the real ToolLedger server on a real database, calling a real invoice
 * service: the seed's scenario (create, replay, conflict, new key, other tenant, restart), a lost
 * answer, and what every other kind of answer becomes. The service's own count of invoices is the
 * proof in every test. Subclasses only supply the database.
 */
abstract class HttpToolContractTest {
  private static final String TOOL = "/v1/tools/create-invoice";
  private static final String INVOICE = "{\"customer\":\"c/42 ä\",\"amount\":1500}";
  private static final String PROBLEMS = "https://toolledger.dev/problems/";

  @TempDir Path dir;
  InvoiceService upstream;
  Nodes nodes;
  String acme;

  /**
   * One node serving {@code tool} on this test's database; called again on a restart, when it must
   * find what the previous node recorded.
   */
  abstract Nodes openNodes(ExternalTool tool);

  @AfterEach
  void stop() {
    if (nodes != null) {
      nodes.close();
      nodes = null;
    }
    if (upstream != null) {
      upstream.close();
      upstream = null;
    }
  }

  private void start(boolean idempotentUpstream, String yaml) throws Exception {
    upstream = InvoiceService.start(idempotentUpstream);
    ExternalTool tool = InvoiceTools.load(dir, yaml, upstream);
    nodes = openNodes(tool);
    acme = nodes.token("acme");
  }

  /** Stops the node and starts a new one on the same database (the upstream keeps running). */
  private void restart(String yaml) throws Exception {
    nodes.close();
    nodes = null;
    nodes = openNodes(InvoiceTools.load(dir, yaml, upstream));
  }

  private Reply call(String key, String parameters) {
    return Http.post(nodes.node(0), TOOL, acme, key, parameters);
  }

  private JsonNode operation(String key) {
    return Http.get(nodes.node(0), "/v1/operations/" + key, acme).json();
  }

  @Test
  void seedScenarioReplaysConflictsScopesByTenantAndSurvivesARestart() throws Exception {
    start(true, InvoiceTools.EXAMPLE);

    Reply first = call("inv-1", INVOICE);
    assertThat(first.status()).isEqualTo(201);
    assertThat(first.header("Idempotent-Replayed")).isEqualTo("false");
    assertThat(first.json().get("customer").asText()).isEqualTo("c/42 ä");
    assertThat(first.json().get("amount").asLong()).isEqualTo(1500);
    assertThat(first.json().get("currency").asText()).isEqualTo("EUR");
    assertThat(upstream.invoiceCount()).isEqualTo(1);
    JsonNode sent = upstream.receivedHeaders().get(0);
    assertThat(sent.get("Authorization").asText()).isEqualTo("Bearer s3cr3t-billing-token");
    assertThat(sent.get("Idempotency-key").asText()).startsWith("tl2-").doesNotContain("inv-1");

    Reply replay = call("inv-1", INVOICE);
    assertThat(replay.status()).isEqualTo(201);
    assertThat(replay.body()).isEqualTo(first.body());
    assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(upstream.invoiceCount()).isEqualTo(1);
    assertThat(upstream.calls.get()).isEqualTo(1);

    Reply conflict = call("inv-1", "{\"customer\":\"c/42 ä\",\"amount\":9999}");
    assertThat(conflict.status()).isEqualTo(422);
    assertThat(conflict.problemType()).isEqualTo(PROBLEMS + "idempotency-key-reused");
    assertThat(upstream.invoiceCount()).isEqualTo(1);

    Reply second = call("inv-2", INVOICE);
    assertThat(second.status()).isEqualTo(201);
    assertThat(second.json().get("id")).isNotEqualTo(first.json().get("id"));
    assertThat(upstream.invoiceCount()).isEqualTo(2);

    String globex = nodes.token("globex");
    Reply otherTenant = Http.post(nodes.node(0), TOOL, globex, "inv-1", INVOICE);
    assertThat(otherTenant.status()).isEqualTo(201);
    assertThat(otherTenant.header("Idempotent-Replayed")).isEqualTo("false");
    assertThat(otherTenant.json().get("id")).isNotEqualTo(first.json().get("id"));
    assertThat(upstream.invoiceCount()).isEqualTo(3);

    restart(InvoiceTools.EXAMPLE);
    Reply afterRestart = call("inv-1", INVOICE);
    assertThat(afterRestart.status()).isEqualTo(201);
    assertThat(afterRestart.body()).isEqualTo(first.body());
    assertThat(afterRestart.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(upstream.invoiceCount()).isEqualTo(3);
    assertThat(upstream.calls.get()).isEqualTo(3);
  }

  @Test
  void lostAnswerOfAnIdempotentUpstreamIsRetriedWithTheSameKeyAndRecordedOnce() throws Exception {
    start(true, InvoiceTools.EXAMPLE);
    upstream.then(Next.CREATE_THEN_DROP);

    Reply reply = call("inv-1", INVOICE);

    assertThat(reply.status()).isEqualTo(201);
    assertThat(upstream.calls.get()).isEqualTo(2);
    assertThat(upstream.invoiceCount()).isEqualTo(1);
    assertThat(upstream.receivedHeaders().get(1).get("Idempotency-key"))
        .isEqualTo(upstream.receivedHeaders().get(0).get("Idempotency-key"));
    JsonNode operation = operation("inv-1");
    assertThat(operation.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(operation.get("history").toString()).contains("performed again");
    assertThat(call("inv-1", INVOICE).header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(upstream.calls.get()).isEqualTo(2);
  }

  @Test
  void lostAnswerOfAnUpstreamThatIsNotIdempotentStaysUnknownAndIsNeverSentAgain() throws Exception {
    start(false, InvoiceTools.variant(false, "5s", ""));
    upstream.then(Next.CREATE_THEN_DROP);

    Reply first = call("inv-1", INVOICE);
    Reply retry = call("inv-1", INVOICE);

    for (Reply reply : new Reply[] {first, retry}) {
      assertThat(reply.status()).isEqualTo(409);
      assertThat(reply.problemType()).isEqualTo(PROBLEMS + "outcome-unknown");
    }
    assertThat(upstream.invoiceCount()).isEqualTo(1);
    assertThat(upstream.calls.get()).isEqualTo(1);
    assertThat(operation("inv-1").get("state").asText()).isEqualTo("UNKNOWN");
  }

  @Test
  void lostAnswerIsSettledAtOnceByTheLookup() throws Exception {
    start(false, InvoiceTools.variant(false, "5s", InvoiceTools.LOOKUP));
    upstream.then(Next.CREATE_THEN_DROP);

    Reply reply = call("inv-1", INVOICE);

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("customer").asText()).isEqualTo("c/42 ä");
    assertThat(upstream.lookups.get()).isEqualTo(1);
    assertThat(operation("inv-1").get("history").toString()).contains("lookup found the effect");
    Reply retry = call("inv-1", INVOICE);
    assertThat(retry.body()).isEqualTo(reply.body());
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(upstream.invoiceCount()).isEqualTo(1);
    assertThat(upstream.calls.get()).isEqualTo(1);
  }

  @Test
  void anIntruderWhoPredictsTheDownstreamKeyCannotPreClaimTheTenantsEffect() throws Exception {
    start(true, InvoiceTools.EXAMPLE);
    // Whoever can call the upstream computes the key the ledger used to send (a plain hash of the
    // tenant and the operation key) and sends it first with an invoice of its own.
    String predicted =
        dev.toolledger.core.engine.DownstreamKeys.legacy(
            dev.toolledger.api.TenantId.of("acme"),
            dev.toolledger.protocol.OperationKey.of("inv-1"));
    java.net.http.HttpResponse<String> intruder =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(
                            "http://" + upstream.address() + "/customers/intruder/invoices"))
                    .header("Idempotency-Key", predicted)
                    .header("Content-Type", "application/json")
                    .POST(
                        java.net.http.HttpRequest.BodyPublishers.ofString(
                            "{\"amount\":1,\"currency\":\"EUR\"}"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(intruder.statusCode()).isEqualTo(201);

    Reply reply = call("inv-1", INVOICE);

    assertThat(reply.status()).isEqualTo(201);
    assertThat(reply.json().get("customer").asText()).isEqualTo("c/42 ä");
    assertThat(reply.json().get("amount").asLong()).isEqualTo(1500);
    String sent = upstream.receivedHeaders().get(1).get("Idempotency-key").asText();
    assertThat(sent).startsWith("tl2-").hasSize(4 + 32).isNotEqualTo(predicted);
    assertThat(upstream.invoiceCount()).isEqualTo(2);
  }

  @Test
  void aClaimInFlightKeepsItsDownstreamKeyWhenTheInstallationSecretChanges() throws Exception {
    String yaml = InvoiceTools.variant(false, "400ms", InvoiceTools.LOOKUP + "lease: 1s\n");
    start(false, yaml);
    upstream.then(Next.CREATE_THEN_DROP);
    upstream.lookupAvailable = false;
    assertThat(call("inv-1", INVOICE).problemType()).isEqualTo(PROBLEMS + "operation-in-progress");
    String claimedWith = upstream.receivedHeaders().get(0).get("Idempotency-key").asText();
    try (java.sql.Connection c = nodes.store(0).dataSource().getConnection();
        java.sql.Statement st = c.createStatement()) {
      assertThat(
              st.executeUpdate(
                  "UPDATE tl_installation SET secret = '"
                      + "ab".repeat(32)
                      + "' WHERE name = 'downstream-key-secret'"))
          .isEqualTo(1);
    }
    restart(yaml);
    assertThat(
            nodes
                .store(0)
                .downstreamKeys()
                .derive(
                    dev.toolledger.api.TenantId.of("acme"),
                    dev.toolledger.protocol.OperationKey.of("inv-1")))
        .isNotEqualTo(claimedWith);

    upstream.lookupAvailable = true;
    nodes.awaitExpiredLease();
    nodes.app(0).engine().recoverExpiredClaims(10);

    JsonNode operation = operation("inv-1");
    assertThat(operation.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(operation.get("history").toString()).contains("lookup found the effect");
    assertThat(upstream.invoiceCount()).isEqualTo(1);
  }

  @Test
  void aPathParameterThatWouldClimbOrRemoveASegmentIsRefusedBeforeAnythingIsClaimed()
      throws Exception {
    start(true, InvoiceTools.EXAMPLE);

    for (String customer : new String[] {"..", ".", ""}) {
      Reply reply =
          call("inv-" + customer.length(), "{\"customer\":\"" + customer + "\",\"amount\":1}");
      assertThat(reply.status()).as(customer).isEqualTo(400);
      assertThat(reply.problemType()).isEqualTo(PROBLEMS + "invalid-parameters");
      assertThat(Http.get(nodes.node(0), "/v1/operations/inv-" + customer.length(), acme).status())
          .isEqualTo(404);
    }
    assertThat(call("inv-9", "{\"customer\":\"...\",\"amount\":1}").status()).isEqualTo(201);
    assertThat(upstream.calls.get()).isEqualTo(1);
  }

  @Test
  void lostAnswerWhoseLookupFailsIsSettledByRecoveryOnceTheLookupAnswers() throws Exception {
    start(false, InvoiceTools.variant(false, "400ms", InvoiceTools.LOOKUP + "lease: 1s\n"));
    upstream.then(Next.CREATE_THEN_DROP);
    upstream.lookupAvailable = false;

    Reply first = call("inv-1", INVOICE);
    assertThat(first.status()).isEqualTo(409);
    assertThat(first.problemType()).isEqualTo(PROBLEMS + "operation-in-progress");
    assertThat(operation("inv-1").get("state").asText()).isEqualTo("IN_PROGRESS");

    upstream.lookupAvailable = true;
    nodes.awaitExpiredLease();
    nodes.app(0).engine().recoverExpiredClaims(10);

    JsonNode operation = operation("inv-1");
    assertThat(operation.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(operation.get("history").toString())
        .contains("taken over")
        .contains("lookup found the effect");
    Reply retry = call("inv-1", INVOICE);
    assertThat(retry.status()).isEqualTo(200);
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(retry.json().get("customer").asText()).isEqualTo("c/42 ä");
    assertThat(upstream.invoiceCount()).isEqualTo(1);
    assertThat(upstream.calls.get()).isEqualTo(1);
  }

  @Test
  void lookupThatPromisesAbsenceFencesTheKeyAsNotExecuted() throws Exception {
    start(false, InvoiceTools.variant(false, "5s", InvoiceTools.LOOKUP + "  absent: [404]\n"));
    upstream.then(Next.DROP_WITHOUT_CREATING);

    Reply reply = call("inv-1", INVOICE);

    assertThat(reply.status()).isEqualTo(409);
    assertThat(reply.problemType()).isEqualTo(PROBLEMS + "operation-not-executed");
    assertThat(operation("inv-1").get("state").asText()).isEqualTo("NOT_EXECUTED");
    assertThat(upstream.invoiceCount()).isZero();
  }

  @Test
  void notDoneAnswerReleasesTheKeyAndTheRetryPerformsOnce() throws Exception {
    start(false, InvoiceTools.variant(false, "5s", ""));
    upstream.then(Next.ANSWER_503);

    Reply refused = call("inv-1", INVOICE);
    assertThat(refused.status()).isEqualTo(503);
    assertThat(refused.problemType()).isEqualTo(PROBLEMS + "tool-unavailable");
    assertThat(refused.json().get("detail").asText()).contains("503").doesNotContain("tl2-");
    assertThat(nodes.count("SELECT COUNT(*) FROM tl_operations")).isZero();
    assertThat(upstream.invoiceCount()).isZero();

    Reply retry = call("inv-1", INVOICE);
    assertThat(retry.status()).isEqualTo(201);
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("false");
    assertThat(upstream.invoiceCount()).isEqualTo(1);
    assertThat(upstream.calls.get()).isEqualTo(2);
  }

  @Test
  void unreachableUpstreamIsNotDoneAndNothingIsRecorded() throws Exception {
    start(false, InvoiceTools.variant(false, "5s", ""));
    int port = Integer.parseInt(upstream.address().split(":")[1]);
    upstream.close();

    Reply reply = call("inv-1", INVOICE);

    assertThat(reply.status()).isEqualTo(503);
    assertThat(reply.problemType()).isEqualTo(PROBLEMS + "tool-unavailable");
    assertThat(reply.json().get("detail").asText())
        .contains("refused the connection")
        .doesNotContain(Integer.toString(port));
    assertThat(nodes.count("SELECT COUNT(*) FROM tl_operations")).isZero();
  }

  @Test
  void serverErrorOfAnUpstreamThatIsNotIdempotentIsUnknown() throws Exception {
    start(false, InvoiceTools.variant(false, "5s", ""));
    upstream.then(Next.ANSWER_500);

    Reply reply = call("inv-1", INVOICE);

    assertThat(reply.status()).isEqualTo(409);
    assertThat(reply.problemType()).isEqualTo(PROBLEMS + "outcome-unknown");
    assertThat(operation("inv-1").get("history").toString())
        .contains("the upstream answered 500")
        .doesNotContain("Exception");
    assertThat(call("inv-1", INVOICE).status()).isEqualTo(409);
    assertThat(upstream.calls.get()).isEqualTo(1);
    assertThat(upstream.invoiceCount()).isZero();
  }

  @Test
  void businessErrorIsRecordedAndReplayedAndCreatesNothing() throws Exception {
    start(false, InvoiceTools.variant(false, "5s", ""));
    upstream.then(Next.ANSWER_422);

    Reply first = call("inv-1", INVOICE);
    Reply retry = call("inv-1", INVOICE);

    assertThat(first.status()).isEqualTo(422);
    assertThat(first.json().get("error").asText()).isEqualTo("amount exceeds the credit limit");
    assertThat(first.header("Idempotent-Replayed")).isEqualTo("false");
    assertThat(retry.status()).isEqualTo(422);
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(upstream.calls.get()).isEqualTo(1);
    assertThat(upstream.invoiceCount()).isZero();
  }

  @Test
  void timeoutIsUnknownEvenThoughTheUpstreamWentOnToCreate() throws Exception {
    start(false, InvoiceTools.variant(false, "300ms", ""));
    upstream.then(Next.CREATE_THEN_ANSWER_LATE);

    Reply reply = call("inv-1", INVOICE);

    assertThat(reply.status()).isEqualTo(409);
    assertThat(reply.problemType()).isEqualTo(PROBLEMS + "outcome-unknown");
    assertThat(operation("inv-1").get("history").toString())
        .contains("a timeout")
        .doesNotContain("Exception");
    assertThat(upstream.invoiceCount()).isEqualTo(1);
    assertThat(call("inv-1", INVOICE).status()).isEqualTo(409);
    assertThat(upstream.calls.get()).isEqualTo(1);
  }
}
