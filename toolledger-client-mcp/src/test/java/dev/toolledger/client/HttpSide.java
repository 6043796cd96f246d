package dev.toolledger.client;

import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.protocol.OperationKey;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/**
 * Test access to toolledger-client's HTTP transport and its answer table (both package-private), so
 * that the MCP transport can be checked side by side with them. Lives in the client's package in
 * this module's test tree only.
 */
public final class HttpSide {
  private HttpSide() {}

  /** The HTTP transport {@link ToolLedgerClient} builds for a base URI and token. */
  public static ActionTransport transport(URI baseUri, String token) {
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    return new HttpTransport(http, baseUri, token, Clock.systemUTC());
  }

  /** What the HTTP transport makes of one answer to {@code POST /v1/tools/{tool}}. */
  public static AttemptResult<Outcome> tool(
      OperationKey key, int status, Map<String, String> headers, String body) {
    return HttpAnswers.tool(key, status, header(headers), body, Clock.systemUTC());
  }

  /** What the HTTP transport makes of one answer to {@code GET /v1/operations/{key}}. */
  public static AttemptResult<LookupResult> lookup(
      OperationKey key, int status, Map<String, String> headers, String body) {
    return HttpAnswers.lookup(key, status, header(headers), body, Clock.systemUTC());
  }

  private static java.util.function.Function<String, Optional<String>> header(
      Map<String, String> headers) {
    return name ->
        headers.entrySet().stream()
            .filter(e -> e.getKey().equalsIgnoreCase(name))
            .map(Map.Entry::getValue)
            .findFirst();
  }
}
