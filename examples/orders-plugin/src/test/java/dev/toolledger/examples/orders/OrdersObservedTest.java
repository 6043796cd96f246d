package dev.toolledger.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator sees of the team's tool: {@code GET /metrics} counts its executions, replays and
 * effects under {@code tool="create-order"}, and the console's API lists its operations.
 */
class OrdersObservedTest {
  static final String ORDER = OrdersSeedScenarioTest.ORDER;

  @TempDir Path dir;
  OrdersNode node;
  String acme;

  @BeforeEach
  void start() {
    Path file = dir.resolve("ledger.db");
    node =
        new OrdersNode(
            () -> JdbcLedgerStore.sqlite(SqliteOptions.builder(file).build()), new OrdersPlugin());
    acme = node.token("acme");
  }

  @AfterEach
  void stop() {
    node.close();
  }

  @Test
  void metricsCountTheOrdersExecutionReplayConflictAndSingleEffect() {
    assertThat(node.call("create-order", acme, "order-1", ORDER).status()).isEqualTo(201);
    assertThat(node.call("create-order", acme, "order-1", ORDER).replayed()).isTrue();
    String other = "{\"sku\":\"BOOK-1\",\"quantity\":3}";
    assertThat(node.call("create-order", acme, "order-1", other).status()).isEqualTo(422);

    HttpResponse<String> scraped = node.getText("/metrics", null);

    assertThat(scraped.statusCode()).isEqualTo(200);
    assertThat(scraped.headers().firstValue("Content-Type").orElse(""))
        .startsWith("text/plain; version=0.0.4");
    String text = scraped.body();
    assertThat(sample(text, "toolledger_requests_total", of("executed"))).hasValue(1);
    assertThat(sample(text, "toolledger_requests_total", of("replayed"))).hasValue(1);
    assertThat(sample(text, "toolledger_requests_total", of("conflict"))).hasValue(1);
    assertThat(sample(text, "toolledger_effects_total", Map.of("tool", "create-order")))
        .hasValue(1);
    assertThat(sample(text, "toolledger_request_duration_seconds_count", of("replayed")))
        .hasValue(1);
    assertThat(node.orders()).isEqualTo(1);
  }

  @Test
  void theConsoleListsTheCreateOrderOperationAndCountsItByTool() {
    node.call("create-order", acme, "order-1", ORDER);
    String operator = node.operatorToken();

    JsonNode listed = node.get("/console/api/operations?tool=create-order", operator).body();
    JsonNode summary = node.get("/console/api/summary", operator).body();

    assertThat(listed.get("operations")).hasSize(1);
    JsonNode operation = listed.at("/operations/0");
    assertThat(operation.path("tenant").asText()).isEqualTo("acme");
    assertThat(operation.path("key").asText()).isEqualTo("order-1");
    assertThat(operation.path("tool").asText()).isEqualTo("create-order");
    assertThat(operation.path("state").asText()).isEqualTo("COMPLETED");
    assertThat(operation.path("status").asInt()).isEqualTo(201);
    assertThat(summary.get("counts").toString())
        .contains("{\"state\":\"COMPLETED\",\"tool\":\"create-order\",\"count\":1}");
  }

  static Map<String, String> of(String outcome) {
    return Map.of("tool", "create-order", "outcome", outcome);
  }

  /** The value of the Prometheus sample {@code name} whose labels include all of {@code labels}. */
  static OptionalDouble sample(String exposition, String name, Map<String, String> labels) {
    for (String line : exposition.split("\n")) {
      if (line.startsWith("#") || !line.startsWith(name + "{")) {
        continue;
      }
      String labelText = line.substring(line.indexOf('{'), line.indexOf('}') + 1);
      if (labels.entrySet().stream()
          .allMatch(e -> labelText.contains(e.getKey() + "=\"" + e.getValue() + "\""))) {
        return OptionalDouble.of(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
      }
    }
    return OptionalDouble.empty();
  }
}
