package dev.toolledger.examples.orders;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolPlugin;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.server.ToolLedgerApp;
import dev.toolledger.server.mcp.McpConventions;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
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
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * An application embedding one ToolLedger node that serves the orders plugin over HTTP on a free
 * port, as docs/tools.md shows; and the few HTTP calls an agent makes.
 */
final class OrdersNode implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  // The lossy proxy relays HTTP/1.1 only (no h2c upgrade), so calls through it use this one.
  private static final HttpClient HTTP_1_1 =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final JdbcLedgerStore store;
  private final ToolLedgerApp app;
  private final List<McpSyncClient> mcpClients = new ArrayList<>();

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

  /** A token of {@code tenant} limited to {@code scopes} ({@code tools:create-order}, ...). */
  String token(String tenant, String... scopes) {
    return app.tokens().issue(TenantId.of(tenant), Scopes.of(scopes), "orders example").token();
  }

  /** A token that opens the operations console (and nothing on the tenant API). */
  String operatorToken() {
    return app.tokens().issueOperator("orders example console").token();
  }

  URI uri() {
    return app.uri();
  }

  /**
   * An initialized MCP client (the official SDK's, over Streamable HTTP) that sends the bearer
   * token on every request. Closed with the node, before it.
   */
  McpSyncClient mcpClient(String token) {
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(app.uri().toString())
            .endpoint(McpConventions.PATH)
            .addHttpRequestCustomizer(
                (request, method, endpoint, body, context) ->
                    request.header("Authorization", "Bearer " + token))
            .build();
    McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(30))
            .initializationTimeout(Duration.ofSeconds(30))
            .build();
    mcpClients.add(client);
    client.initialize();
    return client;
  }

  record Reply(int status, JsonNode body, boolean replayed) {
    String problemType() {
      return body.path("type").asText();
    }
  }

  Reply call(String tool, String token, String key, String json) {
    return send(HTTP, post(app.uri(), tool, token, key, json));
  }

  /**
   * The same call sent to {@code base} (a proxy in front of this node) over HTTP/1.1.
   *
   * @throws UncheckedIOException when the connection closes without an answer
   */
  Reply callVia(URI base, String tool, String token, String key, String json) {
    return send(HTTP_1_1, post(base, tool, token, key, json));
  }

  private static HttpRequest post(URI base, String tool, String token, String key, String json) {
    return HttpRequest.newBuilder(base.resolve("/v1/tools/" + tool))
        .header("Authorization", "Bearer " + token)
        .header("Idempotency-Key", key)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json))
        .build();
  }

  Reply get(String path, String token) {
    return send(HTTP, getRequest(path, token));
  }

  /** A GET whose answer is not JSON ({@code /metrics}); {@code token} may be null. */
  HttpResponse<String> getText(String path, String token) {
    try {
      return HTTP.send(getRequest(path, token), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private HttpRequest getRequest(String path, String token) {
    HttpRequest.Builder request = HttpRequest.newBuilder(app.uri().resolve(path)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return request.build();
  }

  private static Reply send(HttpClient http, HttpRequest request) {
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
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
    return count("SELECT COUNT(*) FROM orders");
  }

  /** The operations the ledger holds, of every tenant. */
  long operations() {
    return count("SELECT COUNT(*) FROM tl_operations");
  }

  /** The first column of the first row of {@code sql}, read straight from the database. */
  long count(String sql) {
    try (Connection c = store.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    for (McpSyncClient client : mcpClients) {
      try {
        client.closeGracefully();
      } catch (RuntimeException ignored) {
        // A client whose session already ended.
      }
    }
    app.close();
    store.close();
  }
}
