package dev.toolledger.springai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.client.ToolLedgerClient;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * The front door: ToolLedger tools as Spring AI {@link ToolCallback}s that send every call through
 * one {@link ToolLedgerClient} (its journal, its keys, its one retry policy).
 *
 * <pre>{@code
 * ToolLedgerTools tools = ToolLedgerTools.builder(client).build();
 * List<ToolCallback> callbacks = tools.discover(URI.create("http://127.0.0.1:8080"), token);
 * String answer = chatClient.prompt()
 *     .user("Make a note: buy milk")
 *     .toolCallbacks(callbacks)
 *     .toolContext(ToolLedgerTools.toolContext("chat-42/turn-7"))
 *     .call()
 *     .content();
 * }</pre>
 *
 * <p>The workflow id names one run of the agent (a user request, a job): the journal keeps one key
 * per step of it. Each {@link #toolContext(String)} starts a pass over the run: its calls become
 * the run's steps {@code call-1}, {@code call-2}, ... by the same-action rule of {@link
 * dev.toolledger.client.AgentRun} (a repeat of a call whose outcome is unknown is the same step; a
 * repeat after a definitive outcome is a new one), and a pass over a run the journal already holds
 * (a replay after a restart, a host retrying the whole exchange) meets the journaled steps in their
 * recorded order.
 */
public final class ToolLedgerTools {
  /** The tool-context entry that holds the run's workflow id (a non-blank {@code String}). */
  public static final String WORKFLOW_ID = "dev.toolledger.workflow-id";

  /** The tool-context entry that holds the request's pass over the run (made by toolContext). */
  static final String RUN_PASS = "dev.toolledger.run-pass";

  /** Default timeout of {@link #discover}: 10 seconds. */
  public static final Duration DEFAULT_DISCOVERY_TIMEOUT = Duration.ofSeconds(10);

  private final ToolLedgerClient client;
  private final Duration discoveryTimeout;

  private ToolLedgerTools(Builder b) {
    this.client = b.client;
    this.discoveryTimeout = b.discoveryTimeout;
  }

  /** Tools that call through {@code client}; it must be built with the run's journal. */
  public static Builder builder(ToolLedgerClient client) {
    return new Builder(client);
  }

  /**
   * The tool context a {@code ChatClient} request needs: the run's workflow id and a new pass over
   * the run. Make one for each request ({@code chatClient.prompt()...toolContext(...).call()}): a
   * request with a new one takes the run's steps from {@code call-1} (so a replay of the run, or a
   * host's retry of the whole exchange, meets the journaled steps in order); a request that reuses
   * one continues where the previous left off. Not as a {@code defaultToolContext}.
   */
  public static Map<String, Object> toolContext(String workflowId) {
    return toolContext(workflowId, Map.of());
  }

  /** {@link #toolContext(String)} with the host's own entries added (their keys must differ). */
  public static Map<String, Object> toolContext(
      String workflowId, Map<String, Object> hostEntries) {
    if (workflowId == null || workflowId.isBlank()) {
      throw new IllegalArgumentException("workflowId must not be blank");
    }
    Map<String, Object> context = new HashMap<>(hostEntries);
    if (context.put(WORKFLOW_ID, workflowId) != null
        || context.put(RUN_PASS, new RunPass()) != null) {
      throw new IllegalArgumentException("hostEntries must not hold ToolLedger's own entries");
    }
    return Map.copyOf(context);
  }

  /**
   * A callback for a tool declared by the host.
   *
   * @param inputSchema the tool's JSON Schema for its parameters (what {@code GET /v1/tools} shows)
   * @throws IllegalArgumentException when the schema is not a JSON object
   */
  public ToolLedgerToolCallback tool(String name, String description, String inputSchema) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    JsonNode schema;
    try {
      schema = Json.parse(Objects.requireNonNull(inputSchema, "inputSchema"));
    } catch (MalformedJsonException e) {
      throw new IllegalArgumentException(
          "inputSchema of " + name + " is not JSON: " + e.getMessage(), e);
    }
    if (!schema.isObject()) {
      throw new IllegalArgumentException("inputSchema of " + name + " must be a JSON object");
    }
    ToolDefinition definition =
        ToolDefinition.builder()
            .name(name)
            .description(description)
            .inputSchema(Json.write(schema))
            .build();
    return new ToolLedgerToolCallback(client, definition);
  }

  /**
   * One callback per tool the token may call, with name, description and input schema as the server
   * lists them ({@code GET /v1/tools}). A single read, not retried: call it when the agent starts,
   * and fail the start if the server cannot be reached.
   *
   * @throws ToolDiscoveryException when the list cannot be read, naming the cause
   */
  public List<ToolCallback> discover(URI baseUri, String token) {
    Objects.requireNonNull(baseUri, "baseUri");
    Objects.requireNonNull(token, "token");
    String base = baseUri.toString().replaceAll("/+$", "");
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + "/v1/tools"))
            .timeout(discoveryTimeout)
            .header("Authorization", "Bearer " + token)
            .header("Accept", "application/json")
            .GET()
            .build();
    HttpResponse<String> response;
    try {
      response =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(discoveryTimeout)
              .build()
              .send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new ToolDiscoveryException(
          "cannot list the tools at " + base + "/v1/tools (" + e.getClass().getSimpleName() + ")",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ToolDiscoveryException("interrupted while listing the tools", e);
    }
    if (response.statusCode() != 200) {
      throw new ToolDiscoveryException(
          "listing the tools at "
              + base
              + "/v1/tools answered "
              + response.statusCode()
              + (response.statusCode() == 401 ? "; check the token" : ""));
    }
    JsonNode tools;
    try {
      tools = Json.parse(response.body()).path("tools");
    } catch (MalformedJsonException e) {
      throw new ToolDiscoveryException("the tool list is not JSON: " + e.getMessage(), e);
    }
    List<ToolCallback> callbacks = new ArrayList<>();
    for (JsonNode tool : tools) {
      callbacks.add(
          tool(
              tool.path("name").asText(),
              tool.path("description").asText(),
              Json.write(tool.path("inputSchema"))));
    }
    return List.copyOf(callbacks);
  }

  /** Options; {@link #build()} checks them. */
  public static final class Builder {
    private final ToolLedgerClient client;
    private Duration discoveryTimeout = DEFAULT_DISCOVERY_TIMEOUT;

    private Builder(ToolLedgerClient client) {
      this.client = client;
    }

    /** Connect and read timeout of {@link #discover}. Default 10 seconds. */
    public Builder discoveryTimeout(Duration discoveryTimeout) {
      this.discoveryTimeout = discoveryTimeout;
      return this;
    }

    public ToolLedgerTools build() {
      if (client == null) {
        throw new IllegalArgumentException(
            "client is required (a ToolLedgerClient with a journal)");
      }
      if (discoveryTimeout == null || discoveryTimeout.isNegative() || discoveryTimeout.isZero()) {
        throw new IllegalArgumentException("discoveryTimeout must be positive");
      }
      return new ToolLedgerTools(this);
    }
  }
}
