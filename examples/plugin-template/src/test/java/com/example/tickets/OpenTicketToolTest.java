package com.example.tickets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.api.TenantId;
import dev.toolledger.embed.CallResult;
import dev.toolledger.embed.ToolLedger;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tool in a real embedded node on a real SQLite file: what a retry of each kind gets. */
class OpenTicketToolTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TenantId ACME = TenantId.of("acme");

  @TempDir Path dir;

  private ToolLedger ledger() {
    return ToolLedger.builder(dir.resolve("ledger.db").toString())
        .plugin(new TicketsPlugin())
        .build();
  }

  @Test
  void aRetryWithTheSameKeyReplaysTheTicketOpenedTheFirstTime() throws Exception {
    JsonNode params = JSON.readTree("{\"title\":\"Printer on fire\"}");
    try (ToolLedger ledger = ledger()) {
      CallResult.Done first =
          assertInstanceOf(
              CallResult.Done.class, ledger.call(ACME, "op-1", "open-ticket", params));
      CallResult.Done retry =
          assertInstanceOf(
              CallResult.Done.class, ledger.call(ACME, "op-1", "open-ticket", params));

      assertEquals(201, first.status());
      assertFalse(first.replayed());
      assertEquals("normal", first.body().get("priority").textValue());
      assertTrue(retry.replayed());
      assertEquals(first.body(), retry.body());
    }
  }

  @Test
  void theSameKeyWithOtherParametersIsRefusedAndOpensNothing() throws Exception {
    try (ToolLedger ledger = ledger()) {
      ledger.call(ACME, "op-1", "open-ticket", JSON.readTree("{\"title\":\"Printer on fire\"}"));
      CallResult changed =
          ledger.call(ACME, "op-1", "open-ticket", JSON.readTree("{\"title\":\"Printer fine\"}"));
      assertEquals(new CallResult.Conflict("open-ticket"), changed);
    }
  }

  @Test
  void aNewKeyWithTheSameContentOpensASecondTicket() throws Exception {
    JsonNode params = JSON.readTree("{\"title\":\"Printer on fire\"}");
    try (ToolLedger ledger = ledger()) {
      CallResult.Done first =
          assertInstanceOf(
              CallResult.Done.class, ledger.call(ACME, "op-1", "open-ticket", params));
      CallResult.Done second =
          assertInstanceOf(
              CallResult.Done.class, ledger.call(ACME, "op-2", "open-ticket", params));
      assertFalse(second.replayed());
      assertNotEquals(first.body().get("ticket"), second.body().get("ticket"));
    }
  }

  @Test
  void invalidParametersAreRefusedBeforeAnythingIsRecorded() throws Exception {
    try (ToolLedger ledger = ledger()) {
      assertInstanceOf(
          CallResult.Invalid.class,
          ledger.call(ACME, "op-1", "open-ticket", JSON.readTree("{\"title\":\"\"}")));
      // The key stayed free: the corrected call executes under it.
      CallResult.Done fixed =
          assertInstanceOf(
              CallResult.Done.class,
              ledger.call(ACME, "op-1", "open-ticket", JSON.readTree("{\"title\":\"x\"}")));
      assertFalse(fixed.replayed());
    }
  }

  @Test
  void theTicketSurvivesARestartAndTheRetryAfterItIsReplayed() throws Exception {
    JsonNode params = JSON.readTree("{\"title\":\"Printer on fire\",\"priority\":\"high\"}");
    CallResult.Done first;
    try (ToolLedger ledger = ledger()) {
      first =
          assertInstanceOf(
              CallResult.Done.class, ledger.call(ACME, "op-1", "open-ticket", params));
    }
    try (ToolLedger ledger = ledger()) {
      assertEquals(
          new CallResult.Done(201, first.body(), true),
          ledger.call(ACME, "op-1", "open-ticket", params));
    }
  }
}
