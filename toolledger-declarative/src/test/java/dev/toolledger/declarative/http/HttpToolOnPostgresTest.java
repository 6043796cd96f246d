package dev.toolledger.declarative.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.declarative.FreezeAfterPerform;
import dev.toolledger.declarative.Http;
import dev.toolledger.declarative.Http.Reply;
import dev.toolledger.declarative.http.InvoiceService.Next;
import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several ToolLedger nodes on one PostgreSQL ledger in front of one invoice service: a node that
 * stops between perform and record is taken over by another, and concurrent duplicates sent to two
 * nodes reach the upstream once.
 */
class HttpToolOnPostgresTest {
  private static final String TOOL = "/v1/tools/create-invoice";
  private static final String INVOICE = "{\"customer\":\"c-42\",\"amount\":1500}";

  @TempDir Path dir;
  PostgresTestDatabase database;
  InvoiceService upstream;
  Nodes nodes;

  @BeforeEach
  void createDatabase() {
    database = PostgresTestDatabase.create();
  }

  @AfterEach
  void stop() {
    if (nodes != null) {
      nodes.close();
    }
    if (upstream != null) {
      upstream.close();
    }
    database.close();
  }

  @Test
  void nodeThatStopsAfterPerformingIsTakenOverAndAnIdempotentUpstreamCreatesOnce()
      throws Exception {
    upstream = InvoiceService.start(true);
    String yaml = InvoiceTools.variant(true, "400ms", "lease: 1s\n");
    FreezeAfterPerform frozen = new FreezeAfterPerform(InvoiceTools.load(dir, yaml, upstream));
    nodes = Nodes.postgres(database, frozen, InvoiceTools.load(dir, yaml, upstream));
    String acme = nodes.token("acme");

    CompletableFuture<Reply> stuck =
        CompletableFuture.supplyAsync(() -> Http.post(nodes.node(0), TOOL, acme, "inv-1", INVOICE));
    assertThat(frozen.performed.await(30, TimeUnit.SECONDS)).isTrue();
    nodes.awaitExpiredLease();
    nodes.app(1).engine().recoverExpiredClaims(10);

    JsonNode operation = Http.get(nodes.node(1), "/v1/operations/inv-1", acme).json();
    assertThat(operation.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(operation.get("history").toString())
        .contains("taken over")
        .contains("performed again with the same downstream key");
    assertThat(upstream.calls.get()).isEqualTo(2);
    assertThat(upstream.invoiceCount()).isEqualTo(1);

    frozen.thaw();
    Reply late = stuck.get(30, TimeUnit.SECONDS);
    assertThat(late.status()).isEqualTo(201);
    assertThat(late.json()).isEqualTo(operation.get("response").get("body"));
    JsonNode after = Http.get(nodes.node(0), "/v1/operations/inv-1", acme).json();
    assertThat(after.get("history").toString()).contains("arrived late and was refused");
    assertThat(upstream.invoiceCount()).isEqualTo(1);
  }

  @Test
  void nodeThatStopsAfterPerformingIsTakenOverAndSettledFromTheLookup() throws Exception {
    upstream = InvoiceService.start(false);
    String yaml = InvoiceTools.variant(false, "400ms", InvoiceTools.LOOKUP + "lease: 1s\n");
    FreezeAfterPerform frozen = new FreezeAfterPerform(InvoiceTools.load(dir, yaml, upstream));
    nodes = Nodes.postgres(database, frozen, InvoiceTools.load(dir, yaml, upstream));
    String acme = nodes.token("acme");

    CompletableFuture<Reply> stuck =
        CompletableFuture.supplyAsync(() -> Http.post(nodes.node(0), TOOL, acme, "inv-1", INVOICE));
    assertThat(frozen.performed.await(30, TimeUnit.SECONDS)).isTrue();
    nodes.awaitExpiredLease();
    nodes.app(1).engine().recoverExpiredClaims(10);

    JsonNode operation = Http.get(nodes.node(1), "/v1/operations/inv-1", acme).json();
    assertThat(operation.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(operation.get("history").toString()).contains("lookup found the effect");
    assertThat(operation.get("response").get("status").asInt()).isEqualTo(200);
    assertThat(operation.get("response").get("body").get("customer").asText()).isEqualTo("c-42");
    assertThat(upstream.calls.get()).isEqualTo(1);
    assertThat(upstream.invoiceCount()).isEqualTo(1);

    frozen.thaw();
    stuck.get(30, TimeUnit.SECONDS);
    assertThat(upstream.invoiceCount()).isEqualTo(1);
  }

  @Test
  void concurrentDuplicatesOnTwoNodesReachTheUpstreamOnce() throws Exception {
    upstream = InvoiceService.start(false);
    upstream.slowByMillis = 500;
    upstream.then(Next.CREATE_SLOWLY);
    String yaml = InvoiceTools.variant(false, "5s", "");
    nodes =
        Nodes.postgres(
            database,
            InvoiceTools.load(dir, yaml, upstream),
            InvoiceTools.load(dir, yaml, upstream));
    String acme = nodes.token("acme");
    int threads = 8;
    CyclicBarrier barrier = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<Reply>> replies = new ArrayList<>();
    try {
      for (int i = 0; i < threads; i++) {
        int node = i % 2;
        replies.add(
            pool.submit(
                () -> {
                  barrier.await(30, TimeUnit.SECONDS);
                  return Http.post(nodes.node(node), TOOL, acme, "inv-1", INVOICE);
                }));
      }
      int executed = 0;
      String body = null;
      for (Future<Reply> future : replies) {
        Reply reply = future.get(60, TimeUnit.SECONDS);
        if (reply.status() == 201) {
          executed += "false".equals(reply.header("Idempotent-Replayed")) ? 1 : 0;
          if (body != null) {
            assertThat(reply.body()).isEqualTo(body);
          }
          body = reply.body();
        } else {
          assertThat(reply.status()).isEqualTo(409);
          assertThat(reply.problemType())
              .isEqualTo("https://toolledger.dev/problems/operation-in-progress");
        }
      }
      assertThat(executed).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
    assertThat(upstream.calls.get()).isEqualTo(1);
    assertThat(upstream.invoiceCount()).isEqualTo(1);
    assertThat(nodes.count("SELECT COUNT(*) FROM tl_operations")).isEqualTo(1);
  }
}
