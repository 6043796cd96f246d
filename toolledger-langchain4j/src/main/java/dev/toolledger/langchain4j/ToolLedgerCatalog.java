package dev.toolledger.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * LangChain4j tool specifications for ToolLedger's tools: names, descriptions and JSON parameter
 * schemas as the server lists them ({@code GET /v1/tools}, only the tools the token may call).
 *
 * <p>The list is read once, without retries: call it at start-up and fail there if the server is
 * not reachable. The schemas are given to the model as the server declares them; the server
 * validates every call against them anyway.
 */
public final class ToolLedgerCatalog {

  /** Default timeout of {@link #fetch(URI, String)}: 10 seconds. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  // Keywords of the schema's root that LangChain4j's object schema represents; others (such as
  // $schema or $id) are dropped from the root so the root stays an object schema.
  private static final Set<String> ROOT_KEYWORDS =
      Set.of("type", "description", "properties", "required", "additionalProperties", "$defs");

  private ToolLedgerCatalog() {}

  /** {@link #fetch(URI, String, Duration)} with {@link #DEFAULT_TIMEOUT}. */
  public static List<ToolSpecification> fetch(URI baseUri, String token) {
    return fetch(baseUri, token, DEFAULT_TIMEOUT);
  }

  /**
   * Reads the tools the token may call.
   *
   * @param baseUri the server, for example {@code http://127.0.0.1:8080}; a path prefix is kept
   * @param token the bearer token; never logged or put in a message
   * @throws ToolCatalogException when the server cannot be reached or does not answer with a list
   */
  public static List<ToolSpecification> fetch(URI baseUri, String token, Duration timeout) {
    Objects.requireNonNull(baseUri, "baseUri");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(timeout, "timeout");
    String base = baseUri.toString();
    URI uri =
        URI.create(
            (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/v1/tools");
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(timeout)
            .build();
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .header("Authorization", "Bearer " + token)
            .header("Accept", "application/json")
            .GET()
            .build();
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new ToolCatalogException(
          "could not read the tool list from " + uri + " (" + e.getClass().getSimpleName() + ")",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ToolCatalogException("interrupted while reading the tool list from " + uri, e);
    }
    if (response.statusCode() != 200) {
      throw new ToolCatalogException(
          "the server answered HTTP "
              + response.statusCode()
              + " to GET "
              + uri
              + (response.statusCode() == 401 ? "; check the token" : ""),
          null);
    }
    JsonNode tools;
    try {
      tools = Json.parse(response.body()).path("tools");
    } catch (MalformedJsonException e) {
      throw new ToolCatalogException("the tool list from " + uri + " is not JSON", e);
    }
    if (!tools.isArray()) {
      throw new ToolCatalogException("the answer of " + uri + " has no \"tools\" list", null);
    }
    List<ToolSpecification> specifications = new ArrayList<>();
    for (JsonNode tool : tools) {
      specifications.add(
          specification(
              tool.path("name").asText(),
              tool.path("description").asText(""),
              tool.path("inputSchema")));
    }
    return List.copyOf(specifications);
  }

  /**
   * A specification from a tool's name, description and JSON Schema of its parameters, for hosts
   * that declare their tools instead of reading them from the server.
   *
   * @throws IllegalArgumentException when the name is blank or the schema is not an object schema
   */
  public static ToolSpecification specification(
      String name, String description, JsonNode inputSchema) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("a tool needs a name");
    }
    if (inputSchema == null || !inputSchema.isObject()) {
      throw new IllegalArgumentException(
          "the parameter schema of tool " + name + " must be a JSON object");
    }
    JsonNode type = inputSchema.get("type");
    if (type != null && !"object".equals(type.asText())) {
      throw new IllegalArgumentException(
          "the parameter schema of tool " + name + " must be of type object, not " + type);
    }
    ObjectNode root = ((ObjectNode) inputSchema).deepCopy();
    Iterator<String> fields = root.fieldNames();
    while (fields.hasNext()) {
      if (!ROOT_KEYWORDS.contains(fields.next())) {
        fields.remove();
      }
    }
    root.put("type", "object");
    ObjectNode json = Json.object();
    json.put("name", name);
    json.put("description", description == null ? "" : description);
    json.set("parameters", root);
    try {
      return ToolSpecification.fromJson(Json.write(json));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "the parameter schema of tool "
              + name
              + " cannot be given to LangChain4j: "
              + e.getMessage(),
          e);
    }
  }
}
