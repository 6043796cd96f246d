package dev.toolledger.clientmcp;

import static dev.toolledger.clientmcp.ClassificationParityTest.summary;
import static dev.toolledger.clientmcp.ClassificationParityTest.wire;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.client.LookupResult;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.ProblemType;
import io.modelcontextprotocol.client.transport.HttpRequestSnapshot;
import io.modelcontextprotocol.client.transport.McpHttpClientTransportAuthorizationException;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpTransportException;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The MCP answer table on its own: what the SDK client throws, and results that are not ToolLedger
 * answers. The exception shapes are the ones mcp-core 2.2.0 produced against a real ToolLedger
 * server; the real-server tests ({@code McpActionTransportTest}, {@code RealServerParityTest}) pin
 * the ones a ToolLedger server can cause.
 */
class McpAnswersTest {
  private static final OperationKey KEY = OperationKey.of("answers-key-0123456789abcdef");

  @Test
  void refusedBearerTokenIsRejectedAsUnauthorizedEvenWhenTheInitializationWrapsIt() {
    Throwable failure =
        new RuntimeException("Client failed to initialize calling tool", authorizationFailure(401));

    assertThat(summary(McpAnswers.toolFailure(KEY, "create-note", failure)))
        .isEqualTo("rejected unauthorized 401");
    assertThat(summary(McpAnswers.toolFailure(KEY, "create-note", authorizationFailure(403))))
        .isEqualTo("rejected forbidden 403");
  }

  @Test
  void invalidParamsErrorAnsweringTheCallIsAnUnknownToolButWithinInitializationItIsNot() {
    McpError unknownTool =
        new McpError(new JSONRPCError(-32602, "Unknown tool: invalid_tool_name", "nope"));

    assertThat(summary(McpAnswers.toolFailure(KEY, "create-nte", unknownTool)))
        .isEqualTo("rejected unknown-tool 404");
    AttemptResult<Outcome> inInit =
        McpAnswers.toolFailure(
            KEY, "create-note", new RuntimeException("Client failed to initialize", unknownTool));
    assertThat(summary(inInit)).isEqualTo("rejected about:blank 400");
    assertThat(
            ((Outcome.Rejected) ((AttemptResult.Done<Outcome>) inInit).value())
                .problem()
                .document()
                .path("jsonRpcCode")
                .asInt())
        .isEqualTo(-32602);
  }

  @Test
  void jsonRpcErrorsThatRefuseTheRequestAreRejectedAndOthersRetried() {
    for (int code : new int[] {-32700, -32600, -32601}) {
      assertThat(summary(McpAnswers.toolFailure(KEY, "t", jsonRpc(code))))
          .as("code %d", code)
          .startsWith("rejected");
    }
    for (int code : new int[] {-32603, -32000, -32001, 1}) {
      assertThat(summary(McpAnswers.toolFailure(KEY, "t", jsonRpc(code))))
          .as("code %d", code)
          .isEqualTo("retry");
    }
  }

  @Test
  void httpFourHundredsOnThePostAreRejectedWithTheQuotedProblemAndFiveHundredsRetried() {
    McpTransportException tooLarge =
        new McpTransportException(
            "Received unexpected status code: 413, response body: {\"type\":"
                + "\"https://toolledger.dev/problems/payload-too-large\",\"title\":\"Payload too"
                + " large\",\"status\":413,\"detail\":\"the request could not be handled\"}");
    McpTransportException wrongPath =
        new McpTransportException(
            "Server Not Found. Status code:404, response body: <html>no</html>");
    McpTransportException unavailable =
        new McpTransportException("Received unexpected status code: 503, response body: ");
    McpTransportException throttled =
        new McpTransportException("Received unexpected status code: 429, response body: ");

    assertThat(summary(McpAnswers.toolFailure(KEY, "t", tooLarge)))
        .isEqualTo("rejected payload-too-large 413");
    assertThat(
            summary(
                McpAnswers.toolFailure(
                    KEY, "t", new RuntimeException("Client failed to initialize", wrongPath))))
        .isEqualTo("rejected about:blank 404");
    assertThat(summary(McpAnswers.toolFailure(KEY, "t", unavailable))).isEqualTo("retry");
    assertThat(summary(McpAnswers.toolFailure(KEY, "t", throttled))).isEqualTo("retry");
  }

  @Test
  void lostConnectionsTimeoutsAndForgottenSessionsAreRetriedWithOnlyClassNamesInTheReason() {
    List<Throwable> failures =
        List.of(
            new RuntimeException(
                new IOException("HTTP/1.1 header parser received no bytes 10.0.0.7")),
            new RuntimeException("Client failed to initialize", new java.net.ConnectException()),
            new RuntimeException(new TimeoutException("Did not observe any item within 10000ms")),
            new McpTransportSessionNotFoundException("Session not found for session ID: s-123"),
            new RuntimeException("MCP session with server terminated"),
            new IllegalStateException("something the SDK did not expect"));
    for (Throwable failure : failures) {
      AttemptResult<Outcome> result = McpAnswers.toolFailure(KEY, "create-note", failure);
      assertThat(result).as(failure.toString()).isInstanceOf(AttemptResult.Retry.class);
      String reason = ((AttemptResult.Retry<Outcome>) result).reason();
      assertThat(reason).doesNotContain("10.0.0.7", "s-123", "10000ms", "terminated", "expect");
    }
  }

  @Test
  void aCauseChainWithACycleEndsInsteadOfLooping() {
    RuntimeException first = new RuntimeException("first");
    RuntimeException second = new RuntimeException("second", first);
    first.initCause(second);

    assertThat(McpAnswers.toolFailure(KEY, "t", first)).isInstanceOf(AttemptResult.Retry.class);
  }

  @Test
  void resultsThatAreNoToolLedgerAnswerAreUnknownNeverCompletedOrRejected() {
    CallToolResult plainSuccess =
        CallToolResult.builder()
            .content(List.of(TextContent.builder("done").build()))
            .isError(false)
            .build();
    CallToolResult plainError =
        CallToolResult.builder()
            .content(List.of(TextContent.builder("boom").build()))
            .isError(true)
            .build();
    CallToolResult errorWithoutStatus =
        CallToolResult.builder()
            .structuredContent(Map.of("type", "https://example.com/oops", "title", "Oops"))
            .isError(true)
            .build();

    assertThat(summary(McpAnswers.tool(KEY, wire(plainSuccess)))).isEqualTo("unknown");
    assertThat(summary(McpAnswers.tool(KEY, wire(plainError)))).isEqualTo("unknown");
    assertThat(summary(McpAnswers.tool(KEY, wire(errorWithoutStatus)))).isEqualTo("unknown");
  }

  @Test
  void problemTypeFromMetaAndStatusFromTheKnownTypeCompleteADocumentThatLacksThem() {
    CallToolResult busy =
        CallToolResult.builder()
            .content(List.of(TextContent.builder("{\"title\":\"busy\"}").build()))
            .isError(true)
            .meta(
                Map.of(
                    McpActionTransport.PROBLEM_TYPE,
                    ProblemType.STORE_BUSY.uri().toString(),
                    McpActionTransport.RETRY_AFTER_SECONDS,
                    3))
            .build();

    assertThat(summary(McpAnswers.tool(KEY, wire(busy)))).isEqualTo("retry after 3 s");
  }

  @Test
  void recordedOutcomeWithoutStructuredContentTakesItsBodyFromTheTextBlock() {
    CallToolResult textOnly =
        CallToolResult.builder()
            .content(List.of(TextContent.builder("{\"id\":3}").build()))
            .isError(false)
            .meta(Map.of(McpActionTransport.REPLAYED, true, McpActionTransport.STATUS, 201))
            .build();

    Outcome.Completed completed =
        (Outcome.Completed)
            ((AttemptResult.Done<Outcome>) McpAnswers.tool(KEY, wire(textOnly))).value();
    assertThat(completed.body().get("id").asInt()).isEqualTo(3);
    assertThat(completed.status()).isEqualTo(201);
    assertThat(completed.replayed()).isTrue();
  }

  @Test
  void unreadableLookupAnswerIsUnavailableAndARefusedLookupIsNeverRetried() {
    CallToolResult garbage =
        CallToolResult.builder()
            .structuredContent(Map.of("state", "SOMETHING_NEW"))
            .isError(false)
            .build();

    assertThat(((AttemptResult.Done<LookupResult>) McpAnswers.lookup(KEY, wire(garbage))).value())
        .isInstanceOf(LookupResult.Unavailable.class);
    assertThat(McpAnswers.lookupFailure(KEY, authorizationFailure(401)))
        .isInstanceOf(AttemptResult.Done.class);
    assertThat(McpAnswers.lookupFailure(KEY, new RuntimeException(new IOException())))
        .isInstanceOf(AttemptResult.Retry.class);
  }

  private static McpError jsonRpc(int code) {
    return new McpError(new JSONRPCError(code, "message " + code, null));
  }

  private static McpHttpClientTransportAuthorizationException authorizationFailure(int status) {
    HttpResponse.ResponseInfo info =
        new HttpResponse.ResponseInfo() {
          @Override
          public int statusCode() {
            return status;
          }

          @Override
          public HttpHeaders headers() {
            return HttpHeaders.of(Map.of(), (a, b) -> true);
          }

          @Override
          public HttpClient.Version version() {
            return HttpClient.Version.HTTP_1_1;
          }
        };
    return new McpHttpClientTransportAuthorizationException(
        "Authorization error when sending message",
        new HttpRequestSnapshot(
            URI.create("http://127.0.0.1/mcp"), "POST", HttpHeaders.of(Map.of(), (a, b) -> true)),
        info);
  }
}
