package dev.toolledger.server.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.toolledger.api.PluginContext;
import dev.toolledger.api.ReadContext;
import dev.toolledger.api.ReadView;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.ToolPlugin;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.server.ToolLedgerApp;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Read views over the real server: an answer over the default bound is a problem+json with a stable
 * type, and a view that writes is refused by the database without changing anything.
 */
class ReadViewProblemsHttpTest {
  @TempDir Path dir;
  JdbcLedgerStore store;
  ToolLedgerApp app;

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
    if (store != null) {
      store.close();
    }
  }

  static ReadView view(String path, ThrowingRead read) {
    return new ReadView() {
      @Override
      public String path() {
        return path;
      }

      @Override
      public JsonNode read(ReadContext context, Map<String, String> query) throws Exception {
        return read.read(context);
      }
    };
  }

  interface ThrowingRead {
    JsonNode read(ReadContext context) throws Exception;
  }

  @Test
  void anAnswerOverTheBoundAndAWriteAreProblemsAndChangeNothing() throws Exception {
    store = JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build());
    try (var c = store.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE view_notes (tenant TEXT NOT NULL, body TEXT NOT NULL)");
      st.execute("INSERT INTO view_notes VALUES ('acme', 'mine'), ('globex', 'theirs')");
    }
    ToolPlugin plugin =
        new ToolPlugin() {
          @Override
          public String name() {
            return "views";
          }

          @Override
          public void register(PluginContext context) {
            context.readView(
                view(
                    "big",
                    read -> {
                      ArrayNode rows = Json.mapper().createArrayNode();
                      for (int i = 0; i < 3000; i++) {
                        rows.add("x".repeat(1000));
                      }
                      return Json.object().set("rows", rows);
                    }));
            context.readView(
                view(
                    "defacer",
                    read -> {
                      try (Statement st = read.connection().createStatement()) {
                        st.executeUpdate("UPDATE view_notes SET body = 'defaced'");
                      }
                      return Json.object();
                    }));
          }
        };
    app =
        ToolLedgerApp.builder(store)
            .plugin(plugin)
            .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
            .recoveryInterval(Duration.ZERO)
            .sweepInterval(Duration.ZERO)
            .relayEnabled(false)
            .start();
    String token = app.tokens().issue(TenantId.of("acme"), "test").token();

    HttpResponse<String> big = get("/v1/big", token);
    HttpResponse<String> defacer = get("/v1/defacer", token);

    assertThat(big.statusCode()).isEqualTo(500);
    assertThat(big.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(Json.parse(big.body()).get("type").asText())
        .isEqualTo("https://toolledger.dev/problems/read-view-too-large");
    assertThat(defacer.statusCode()).isEqualTo(500);
    assertThat(defacer.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    try (var c = store.dataSource().getConnection();
        Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT count(*) FROM view_notes WHERE body = 'defaced'")) {
      rs.next();
      assertThat(rs.getLong(1)).isZero();
    }
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(app.uri().resolve(path))
                .header("Authorization", "Bearer " + token)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
