package dev.toolledger.clientmcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.testkit.HeldRequests;
import dev.toolledger.testkit.LossyProxy;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins a behaviour of the SDK's sync client (mcp-core 2.2.0) that {@link McpActionTransport} is
 * built around, so that an SDK upgrade that changes it shows up here: a call interrupted while the
 * client initializes its session leaves that initialization pending for good, and every later call
 * joins it and fails. That is why the transport never interrupts a call it stops waiting for.
 */
class SdkClientBehaviourTest {
  @TempDir Path dir;

  @Test
  void callInterruptedDuringInitializationLeavesTheSyncClientUnableToInitialize() throws Exception {
    HeldRequests held = HeldRequests.posts();
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try (LedgerNode node = LedgerNode.start(dir);
        LossyProxy proxy = LossyProxy.start(node.uri(), McpTraffic.forwardAll(), held)) {
      String token = node.token("acme");
      McpSyncClient client =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder(proxy.uri().toString())
                      .endpoint("/mcp")
                      .addHttpRequestCustomizer(
                          (request, method, uri, body, context) ->
                              request.header("Authorization", "Bearer " + token))
                      .build())
              .requestTimeout(Duration.ofSeconds(1))
              .initializationTimeout(Duration.ofSeconds(1))
              .build();
      try {
        Future<?> first = caller.submit(() -> client.callTool(ping()));
        assertThat(held.awaitHeld(1, Duration.ofSeconds(30))).as("initialize on its way").isTrue();
        first.cancel(true); // interrupts the thread blocked in the SDK call
        assertThatThrownBy(first::get)
            .isInstanceOf(java.util.concurrent.CancellationException.class);
        held.release();

        for (int call = 0; call < 2; call++) {
          assertThatThrownBy(() -> callOn(caller, client))
              .as("call %d after the interrupted one", call + 1)
              .hasStackTraceContaining("Client failed to initialize");
        }
        assertThat(client.isInitialized()).isFalse();
      } finally {
        client.close();
      }
    } finally {
      caller.shutdownNow();
    }
  }

  private static void callOn(ExecutorService caller, McpSyncClient client) throws Exception {
    CompletableFuture<Object> result = new CompletableFuture<>();
    caller.execute(
        () -> {
          try {
            result.complete(client.callTool(ping()));
          } catch (RuntimeException e) {
            result.completeExceptionally(e);
          }
        });
    result.get(30, TimeUnit.SECONDS);
  }

  private static CallToolRequest ping() {
    return CallToolRequest.builder("get-operation").arguments(Map.of("key", "no-such-key")).build();
  }
}
