package dev.toolledger.declarative.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.declarative.Http;
import dev.toolledger.declarative.Http.Reply;
import dev.toolledger.declarative.http.InvoiceService.Next;
import dev.toolledger.jdbc.SqliteBackup;
import dev.toolledger.protocol.OperationKey;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Downstream keys between installations: two ledgers with the same tenant and key names (staging
 * and production against one payment provider) send different keys, and a ledger restored from its
 * backup sends the keys its claims were made with. Real SQLite files, a real upstream that honours
 * {@code Idempotency-Key}.
 */
class DownstreamKeyInstallationsTest {
  private static final String TOOL = "/v1/tools/create-invoice";
  private static final String INVOICE = "{\"customer\":\"c-42\",\"amount\":1500}";

  @TempDir Path dir;
  InvoiceService upstream;
  Nodes staging;
  Nodes production;

  @AfterEach
  void stop() {
    for (Nodes nodes : new Nodes[] {staging, production}) {
      if (nodes != null) {
        nodes.close();
      }
    }
    if (upstream != null) {
      upstream.close();
    }
  }

  @Test
  void twoInstallationsWithTheSameTenantAndKeySendDifferentKeysAndMakeTwoEffects()
      throws Exception {
    upstream = InvoiceService.start(true);
    staging =
        Nodes.sqlite(
            dir.resolve("staging.db"), InvoiceTools.load(dir, InvoiceTools.EXAMPLE, upstream));
    production =
        Nodes.sqlite(
            dir.resolve("production.db"), InvoiceTools.load(dir, InvoiceTools.EXAMPLE, upstream));

    Reply fromStaging = Http.post(staging.node(0), TOOL, staging.token("acme"), "inv-1", INVOICE);
    Reply fromProduction =
        Http.post(production.node(0), TOOL, production.token("acme"), "inv-1", INVOICE);

    assertThat(fromStaging.status()).isEqualTo(201);
    assertThat(fromProduction.status()).isEqualTo(201);
    String stagingKey = upstream.receivedHeaders().get(0).get("Idempotency-key").asText();
    String productionKey = upstream.receivedHeaders().get(1).get("Idempotency-key").asText();
    assertThat(stagingKey).startsWith("tl2-").isNotEqualTo(productionKey);
    assertThat(productionKey).startsWith("tl2-");
    assertThat(fromProduction.json().get("id")).isNotEqualTo(fromStaging.json().get("id"));
    assertThat(upstream.invoiceCount()).isEqualTo(2);
  }

  @Test
  void aLedgerRestoredFromItsBackupSettlesAClaimInFlightWithTheKeyItWasSent() throws Exception {
    upstream = InvoiceService.start(false);
    String yaml = InvoiceTools.variant(false, "400ms", InvoiceTools.LOOKUP + "lease: 1s\n");
    Path ledger = dir.resolve("ledger.db");
    production = Nodes.sqlite(ledger, InvoiceTools.load(dir, yaml, upstream));
    String acme = production.token("acme");
    // A first call, with a longer timeout, warms the JVM up: the lost call below has 400 ms.
    InvoiceTools.load(dir, InvoiceTools.EXAMPLE, upstream)
        .perform(
            new dev.toolledger.api.EffectContext(TenantId.of("warm-up"), "tl2-warm-up", 1),
            dev.toolledger.protocol.Json.parse(INVOICE));
    upstream.then(Next.CREATE_THEN_DROP);
    upstream.lookupAvailable = false;
    Reply lost = Http.post(production.node(0), TOOL, acme, "inv-1", INVOICE);
    assertThat(lost.status()).isEqualTo(409);
    String sent = upstream.receivedHeaders().get(1).get("Idempotency-key").asText();
    Path backup = dir.resolve("backup.db");
    SqliteBackup.backup(ledger, backup);
    production.close();
    production = null;

    Path restored = dir.resolve("restored.db");
    SqliteBackup.restore(backup, restored);
    staging = Nodes.sqlite(restored, InvoiceTools.load(dir, yaml, upstream));
    assertThat(
            staging.store(0).downstreamKeys().derive(TenantId.of("acme"), OperationKey.of("inv-1")))
        .isEqualTo(sent);
    upstream.lookupAvailable = true;
    staging.awaitExpiredLease();
    staging.app(0).engine().recoverExpiredClaims(10);

    JsonNode operation =
        Http.get(staging.node(0), "/v1/operations/inv-1", staging.token("acme")).json();
    assertThat(operation.get("state").asText()).isEqualTo("COMPLETED");
    assertThat(operation.get("history").toString()).contains("lookup found the effect");
    assertThat(upstream.invoiceCount()).isEqualTo(2);
  }
}
