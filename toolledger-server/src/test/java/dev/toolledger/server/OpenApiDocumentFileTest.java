package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.protocol.Json;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docs/openapi.json}, the copy kept in the repository (and the one the example client is
 * generated from), is exactly what a default server ({@code toolledger serve}: the notes plugin
 * without options) serves to a token that may do everything; and it reads as OpenAPI 3.1 without a
 * single message from swagger-parser.
 */
class OpenApiDocumentFileTest {
  private static final Path REPOSITORY_COPY = Path.of("..", "docs", "openapi.json");

  @Test
  void repositoryCopyIsWhatTheDefaultServerServes(@TempDir Path dir) throws Exception {
    JsonNode served;
    try (JdbcLedgerStore store =
            JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build());
        ToolLedgerApp app =
            ToolLedgerApp.builder(store)
                .plugin(new NotesPlugin())
                .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
                .start()) {
      String token = app.tokens().issue(TenantId.of("docs"), Scopes.tenantAll(), "openapi").token();
      Http.Reply reply = Http.get(app.uri(), "/openapi.json", token);
      assertThat(reply.status()).isEqualTo(200);
      served = reply.json();
    }
    JsonNode kept = Json.parse(Files.readAllBytes(REPOSITORY_COPY));
    if (!served.equals(kept)) {
      Path fresh = Path.of("target", "openapi.json");
      Files.writeString(
          fresh, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(served) + "\n");
      assertThat(served.equals(kept))
          .as(
              "docs/openapi.json differs from what the server serves (written to"
                  + " toolledger-server/target/openapi.json); if the change is meant, copy that"
                  + " file to docs/openapi.json")
          .isTrue();
    }
  }

  @Test
  void repositoryCopyParsesAsOpenApi31WithoutMessages() throws Exception {
    ParseOptions options = new ParseOptions();
    options.setResolve(true);
    SwaggerParseResult result =
        new OpenAPIV3Parser().readContents(Files.readString(REPOSITORY_COPY), null, options);
    assertThat(result.getMessages()).isEmpty();
    assertThat(result.getOpenAPI().getOpenapi()).isEqualTo("3.1.0");
    assertThat(result.getOpenAPI().getPaths()).containsKey("/v1/tools/create-note");
  }
}
