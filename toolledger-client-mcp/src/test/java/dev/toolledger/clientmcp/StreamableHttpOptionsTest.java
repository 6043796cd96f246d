package dev.toolledger.clientmcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.client.journal.ActionJournal;
import dev.toolledger.protocol.OperationKey;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The front door refuses unusable arguments with a message that names the one at fault. */
class StreamableHttpOptionsTest {
  private static final URI ENDPOINT = URI.create("http://127.0.0.1:8080/mcp");
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void unusableEndpointTokenOrTimeoutIsRefusedNamingIt() {
    assertRefused(URI.create("/mcp"), "tl_x", TIMEOUT, "endpoint must be an absolute http");
    assertRefused(URI.create("ftp://h/mcp"), "tl_x", TIMEOUT, "endpoint must be an absolute http");
    assertRefused(URI.create("http://h:8080"), "tl_x", TIMEOUT, "endpoint must name the MCP path");
    assertRefused(URI.create("http://h:8080/"), "tl_x", TIMEOUT, "endpoint must name the MCP path");
    assertRefused(
        URI.create("http://h/mcp?x=1"), "tl_x", TIMEOUT, "endpoint must not have a query");
    assertRefused(ENDPOINT, null, TIMEOUT, "token is required");
    assertRefused(ENDPOINT, " ", TIMEOUT, "token is required");
    assertRefused(ENDPOINT, "tl_with space", TIMEOUT, "token must be visible ASCII");
    assertRefused(ENDPOINT, "tl_x", Duration.ZERO, "timeout must be positive");
    assertRefused(ENDPOINT, "tl_x", null, "timeout must be positive");
  }

  @Test
  void transportPlugsIntoTheClientInPlaceOfBaseUriAndToken() throws Exception {
    try (ActionJournal journal = ActionJournal.sqlite(dir.resolve("journal.db"));
        McpActionTransport mcp = McpActionTransport.streamableHttp(ENDPOINT, "tl_x", TIMEOUT)) {
      assertThat(ToolLedgerClient.builder().journal(journal).transport(mcp).build()).isNotNull();
      assertThatThrownBy(
              () ->
                  ToolLedgerClient.builder()
                      .journal(journal)
                      .transport(mcp)
                      .baseUri(URI.create("http://127.0.0.1:8080"))
                      .build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("transport replaces baseUri");
    }
  }

  @Test
  void closedTransportTakesNoMoreAttempts() {
    McpActionTransport mcp = McpActionTransport.streamableHttp(ENDPOINT, "tl_x", TIMEOUT);
    mcp.close();

    assertThatThrownBy(() -> mcp.lookup(OperationKey.of("closed-key-0001"), TIMEOUT))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  private static void assertRefused(URI endpoint, String token, Duration timeout, String message) {
    assertThatThrownBy(() -> McpActionTransport.streamableHttp(endpoint, token, timeout))
        .as("%s %s %s", endpoint, token, timeout)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
