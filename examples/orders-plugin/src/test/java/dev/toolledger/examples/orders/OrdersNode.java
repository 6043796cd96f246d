package dev.toolledger.examples.orders;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolPlugin;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.server.ToolLedgerApp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * An application embedding one ToolLedger node that serves the orders plugin over HTTP on a free
 * port, as docs/tools.md shows; and the few HTTP calls an agent makes.
 */
final class OrdersNode implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final JdbcLedgerStore store;
  private final ToolLedgerApp app;

  OrdersNode(Supplier<JdbcLedgerStore> open, ToolPlugin plugin) {
    this.store = open.get();
    try {
      this.app =
          ToolLedgerApp.builder(store)
              .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
              .plugin(plugin)
              .start();
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  String token(String tenant) {
    return app.tokens().issue(TenantId.of(tenant), "orders example").token();
  }

  URI uri() {
    return app.uri();
  }

  record Reply(int status, JsonNode body, boolean replayed) {
    String problemType() {
      return body.path("type").asText();
    }
  }

  Reply call(String tool, String token, String key, String json) {
    return send(
        HttpRequest.newBuilder(app.uri().resolve("/v1/tools/" + tool))
            .header("Authorization", "Bearer " + token)
            .header("Idempotency-Key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build());
  }

  Reply get(String path, String token) {
    return send(
        HttpRequest.newBuilder(app.uri().resolve(path))
            .header("Authorization", "Bearer " + token)
            .GET()
            .build());
  }

  private static Reply send(HttpRequest request) {
    try {
      HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      JsonNode body = response.body().isEmpty() ? JSON.nullNode() : JSON.readTree(response.body());
      return new Reply(
          response.statusCode(),
          body,
          response.headers().firstValue("Idempotent-Replayed").orElse("").equals("true"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  long orders() {
    try (Connection c = store.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM orders")) {
      rs.next();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    app.close();
    store.close();
  }
}
