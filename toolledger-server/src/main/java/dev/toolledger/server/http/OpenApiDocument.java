package dev.toolledger.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.ProblemType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The OpenAPI 3.1 document of the HTTP API, served at {@value #PATH}. The ledger's own API is a
 * static document kept in the repository ({@code openapi-base.json} beside this class); the list of
 * problem types comes from {@link ProblemType}, so it cannot fall behind the server. Tools and read
 * views come from plugins, so their operations are made from what is registered: one {@code POST
 * /v1/tools/NAME} per tool with the tool's JSON Schema as the request body, one {@code GET
 * /v1/PATH} per read view.
 *
 * <p>What a caller gets follows {@code GET /v1/tools}: a tool outside the caller's scopes is not
 * shown, and without a token no tool or view is shown at all, only the generic {@code POST
 * /v1/tools/{tool}}.
 */
final class OpenApiDocument {
  static final String PATH = "/openapi.json";
  private static final String BASE = "openapi-base.json";
  private static final String SCHEMAS = "#/components/schemas/";
  private static final ObjectNode TEMPLATE = load();

  private OpenApiDocument() {}

  /**
   * The document for a caller.
   *
   * @param tools the tools the caller may call, in the order to list them
   * @param readPaths the read views' paths (for example {@code /v1/notes}) the caller may read
   */
  static ObjectNode of(List<ToolDescriptor> tools, List<String> readPaths) {
    ObjectNode document = TEMPLATE.deepCopy();
    ObjectNode paths = (ObjectNode) document.get("paths");
    ObjectNode schemas = (ObjectNode) document.get("components").get("schemas");
    Set<String> operationIds = new HashSet<>();
    paths.forEach(item -> item.forEach(op -> operationIds.add(op.path("operationId").asText())));
    ObjectNode generic = (ObjectNode) paths.get("/v1/tools/{tool}").get("post");
    for (ToolDescriptor tool : tools) {
      String name = unique("call" + pascal(tool.name()), operationIds);
      String schemaName = unique(pascal(tool.name()) + "Parameters", schemas::has);
      schemas.set(schemaName, embedded(tool.inputSchema(), SCHEMAS + schemaName));
      paths
          .putObject("/v1/tools/" + tool.name())
          .set("post", toolOperation(generic, tool, name, SCHEMAS + schemaName));
    }
    for (String path : readPaths) {
      String view = path.startsWith("/v1/") ? path.substring("/v1/".length()) : path;
      paths
          .putObject(path)
          .set("get", readOperation(path, unique("read" + pascal(view), operationIds)));
    }
    return document;
  }

  private static ObjectNode toolOperation(
      ObjectNode generic, ToolDescriptor tool, String id, String schemaRef) {
    ObjectNode op = generic.deepCopy();
    op.put("operationId", id);
    op.put("summary", "Run " + tool.name() + " (version " + tool.version() + ")");
    op.put(
        "description",
        tool.description()
            + "\n\nThe request body is the tool's parameters, checked against its JSON Schema"
            + " before anything is recorded.");
    ArrayNode parameters = op.putArray("parameters");
    for (JsonNode parameter : generic.get("parameters")) {
      if (!parameter.path("$ref").asText().endsWith("/ToolName")) {
        parameters.add(parameter.deepCopy());
      }
    }
    ObjectNode body = (ObjectNode) op.get("requestBody");
    body.put("description", "The parameters of " + tool.name() + ".");
    ((ObjectNode) body.get("content").get("application/json"))
        .putObject("schema")
        .put("$ref", schemaRef);
    return op;
  }

  private static ObjectNode readOperation(String path, String id) {
    ObjectNode op = Json.object();
    op.put("operationId", id);
    op.putArray("tags").add("views");
    op.put("summary", "Read view " + path);
    op.put(
        "description",
        "A plugin's read view of the calling tenant's data; needs the `read` scope. Its query"
            + " parameters are the view's own (a bad one answers `400 invalid-parameters`).");
    ObjectNode responses = op.putObject("responses");
    responses
        .putObject("200")
        .put("description", "The view's answer.")
        .putObject("content")
        .putObject("application/json")
        .putObject("schema");
    String[][] errors = {
      {"400", "BadRequest"},
      {"401", "Unauthorized"},
      {"403", "Forbidden"},
      {"500", "ServerError"},
      {"503", "Unavailable"}
    };
    for (String[] error : errors) {
      responses.putObject(error[0]).put("$ref", "#/components/responses/" + error[1]);
    }
    return op;
  }

  /**
   * A tool's schema placed at {@code location} in the document: its own local references ({@code
   * #/$defs/...}) are rewritten to point into it there, unless it declares its own {@code $id}
   * (then they resolve against that and stay as they are).
   */
  static JsonNode embedded(JsonNode schema, String location) {
    JsonNode copy = schema.deepCopy();
    if (!copy.has("$id")) {
      rebase(copy, location);
    }
    return copy;
  }

  private static void rebase(JsonNode node, String location) {
    if (node.isObject()) {
      ObjectNode object = (ObjectNode) node;
      JsonNode ref = object.get("$ref");
      if (ref != null && ref.isTextual() && ref.asText().startsWith("#")) {
        object.put("$ref", location + ref.asText().substring(1));
      }
      for (Iterator<JsonNode> it = object.elements(); it.hasNext(); ) {
        rebase(it.next(), location);
      }
    } else if (node.isArray()) {
      node.forEach(element -> rebase(element, location));
    }
  }

  /** {@code create-note} to {@code CreateNote}, {@code /v1/notes} to {@code V1Notes}. */
  static String pascal(String name) {
    StringBuilder out = new StringBuilder();
    boolean upper = true;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isLetterOrDigit(c)) {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      } else {
        upper = true;
      }
    }
    return out.toString();
  }

  private static String unique(String name, Set<String> taken) {
    String candidate = unique(name, taken::contains);
    taken.add(candidate);
    return candidate;
  }

  private static String unique(String name, java.util.function.Predicate<String> taken) {
    String candidate = name;
    for (int i = 2; taken.test(candidate); i++) {
      candidate = name + i;
    }
    return candidate;
  }

  private static ObjectNode load() {
    try (InputStream in = OpenApiDocument.class.getResourceAsStream(BASE)) {
      if (in == null) {
        throw new IllegalStateException(BASE + " is missing from the server's jar");
      }
      ObjectNode base = (ObjectNode) Json.parse(in.readAllBytes());
      ObjectNode types = (ObjectNode) base.get("components").get("schemas").get("ProblemType");
      StringBuilder description =
          new StringBuilder(
              "The stable `type` of every error ToolLedger itself answers, over HTTP and MCP"
                  + " alike. Dispatch on it; `title` and `detail` are for people.\n");
      ArrayNode values = types.putArray("enum");
      ArrayNode names = types.putArray("x-enum-varnames");
      for (ProblemType type : ProblemType.values()) {
        values.add(type.uri().toString());
        names.add(type.name());
        description
            .append("\n- `")
            .append(type.slug())
            .append("` (")
            .append(type.status())
            .append("): ")
            .append(type.title());
      }
      types.put("description", description.toString());
      return base;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + BASE, e);
    }
  }
}
