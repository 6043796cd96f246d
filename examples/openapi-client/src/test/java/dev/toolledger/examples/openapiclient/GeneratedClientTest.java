package dev.toolledger.examples.openapiclient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.toolledger.api.TenantId;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.openapiclient.api.OperationsApi;
import dev.toolledger.examples.openapiclient.api.ToolsApi;
import dev.toolledger.examples.openapiclient.model.CreateNoteParameters;
import dev.toolledger.examples.openapiclient.model.Operation;
import dev.toolledger.examples.openapiclient.model.OperationState;
import dev.toolledger.examples.openapiclient.model.Problem;
import dev.toolledger.examples.openapiclient.model.ProblemType;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.ServerConfig;
import dev.toolledger.server.ToolLedgerApp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client that openapi-generator made from {@code docs/openapi.json} at build time (nothing of
 * it is written by hand) drives a real server: a note created under a key, the retry replayed with
 * {@code Idempotent-Replayed: true}, the key reused with another title refused as a problem
 * document, and the outcome looked up.
 */
class GeneratedClientTest {

  @Test
  void generatedClientCreatesReplaysAndSeesAConflictAsAProblem(@TempDir Path dir) throws Exception {
    try (JdbcLedgerStore store =
            JdbcLedgerStore.sqlite(SqliteOptions.builder(dir.resolve("ledger.db")).build());
        ToolLedgerApp app =
            ToolLedgerApp.builder(store)
                .plugin(new NotesPlugin())
                .serverConfig(ServerConfig.builder().port(0).shutdownGrace(Duration.ZERO).build())
                .start()) {
      String token = app.tokens().issue(TenantId.of("acme"), "generated-client").token();
      ApiClient client = new ApiClient();
      client.updateBaseUri(app.uri().toString());
      // The document declares bearer authentication; the native client leaves it to the caller.
      client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + token));
      ToolsApi tools = new ToolsApi(client);

      ApiResponse<Object> first =
          tools.callCreateNoteWithHttpInfo(
              "op-1", new CreateNoteParameters().title("Buy milk"), null);
      assertThat(first.getStatusCode()).isEqualTo(201);
      assertThat(first.getHeaders().get("idempotent-replayed")).isEqualTo(List.of("false"));

      ApiResponse<Object> retry =
          tools.callCreateNoteWithHttpInfo(
              "op-1", new CreateNoteParameters().title("Buy milk"), null);
      assertThat(retry.getStatusCode()).isEqualTo(201);
      assertThat(retry.getHeaders().get("idempotent-replayed")).isEqualTo(List.of("true"));
      assertThat(retry.getData()).isEqualTo(first.getData());

      ApiException conflict =
          catchThrowableOfType(
              ApiException.class,
              () ->
                  tools.callCreateNote(
                      "op-1", new CreateNoteParameters().title("Buy bread"), null));
      assertThat(conflict.getCode()).isEqualTo(422);
      assertThat(conflict.getResponseHeaders().firstValue("Content-Type"))
          .hasValue("application/problem+json");
      Problem problem =
          client.getObjectMapper().readValue(conflict.getResponseBody(), Problem.class);
      assertThat(problem.getType().toString()).isEqualTo(ProblemType.KEY_REUSED.getValue());
      assertThat(problem.getStatus()).isEqualTo(422);

      Operation operation = new OperationsApi(client).lookupOperation("op-1");
      assertThat(operation.getState()).isEqualTo(OperationState.COMPLETED);
      assertThat(operation.getTool()).isEqualTo("create-note");
      assertThat(operation.getResponse().getStatus()).isEqualTo(201);
    }
  }
}
