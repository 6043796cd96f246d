package dev.toolledger.core.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Result;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.PathType;
import com.networknt.schema.walk.WalkConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * A tool's parameter schema (JSON Schema 2020-12 unless the schema names another dialect with
 * {@code $schema}), compiled once and used for every call.
 *
 * <p>Validation works on a copy: the caller's tree is never changed. Defaults declared with {@code
 * default} are applied to absent properties (not to properties sent as {@code null}, which stay
 * invalid unless the schema allows null), so the validated parameters are what the tool runs with
 * and what the fingerprint covers.
 *
 * <p>Text (values and property names) holding the NUL character U+0000 is invalid under every
 * schema: not every ledger database can store it.
 */
public final class ParameterSchema {
  private static final SchemaRegistry REGISTRY =
      SchemaRegistry.withDefaultDialect(
          SpecificationVersion.DRAFT_2020_12,
          builder ->
              builder.schemaRegistryConfig(
                  com.networknt.schema.SchemaRegistryConfig.builder()
                      .pathType(PathType.JSON_POINTER)
                      .build()));

  /** How a walk applies defaults; built once rather than by a builder on every call. */
  private static final WalkConfig APPLY_PROPERTY_DEFAULTS =
      WalkConfig.builder()
          .applyDefaultsStrategy(
              defaults ->
                  defaults
                      .applyPropertyDefaults(true)
                      .applyPropertyDefaultsIfNull(false)
                      .applyArrayDefaults(false))
          .build();

  private final JsonNode source;
  private final Schema schema;

  private ParameterSchema(JsonNode source, Schema schema) {
    this.source = source;
    this.schema = schema;
  }

  /**
   * Compiles a schema.
   *
   * @throws IllegalArgumentException when the schema itself is not a usable JSON Schema object
   */
  public static ParameterSchema compile(JsonNode schema) {
    Objects.requireNonNull(schema, "schema");
    if (!schema.isObject()) {
      throw new IllegalArgumentException("a tool's input schema must be a JSON object");
    }
    List<String> wrong = metaSchemaErrors(schema);
    if (!wrong.isEmpty()) {
      throw new IllegalArgumentException(
          "the tool's input schema is not a valid JSON Schema: " + String.join("; ", wrong));
    }
    try {
      Schema compiled = REGISTRY.getSchema(schema.deepCopy());
      compiled.initializeValidators();
      return new ParameterSchema(schema.deepCopy(), compiled);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "the tool's input schema is not valid: " + e.getMessage(), e);
    }
  }

  /**
   * What is wrong with {@code schema} by the meta-schema of its dialect (2020-12 unless {@code
   * $schema} names draft 4, 6, 7 or 2019-09; the meta-schemas ship with the validator, nothing is
   * fetched). A schema naming an unknown dialect is only compiled.
   */
  static List<String> metaSchemaErrors(JsonNode schema) {
    JsonNode dialect = schema.get("$schema");
    java.util.Optional<SpecificationVersion> version =
        dialect == null
            ? java.util.Optional.of(SpecificationVersion.DRAFT_2020_12)
            : SpecificationVersion.fromDialectId(dialect.asText());
    if (version.isEmpty()) {
      return List.of();
    }
    java.util.Map<String, String> firstByField = new java.util.LinkedHashMap<>();
    for (com.networknt.schema.Error error : metaSchema(version.get()).validate(schema)) {
      String at = error.getInstanceLocation() == null ? "" : error.getInstanceLocation().toString();
      firstByField.putIfAbsent(at, error.getMessage());
    }
    return firstByField.entrySet().stream()
        .map(e -> "at '" + (e.getKey().isEmpty() ? "/" : e.getKey()) + "': " + e.getValue())
        .toList();
  }

  private static final java.util.Map<SpecificationVersion, Schema> META_SCHEMAS =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static Schema metaSchema(SpecificationVersion version) {
    return META_SCHEMAS.computeIfAbsent(
        version,
        v -> {
          Schema meta =
              SchemaRegistry.withDefaultDialect(
                      v,
                      builder ->
                          builder.schemaRegistryConfig(
                              com.networknt.schema.SchemaRegistryConfig.builder()
                                  .pathType(PathType.JSON_POINTER)
                                  .build()))
                  .getSchema(com.networknt.schema.SchemaLocation.of(v.getDialectId()));
          meta.initializeValidators();
          return meta;
        });
  }

  /** The schema as given, for publishing (for example as an MCP tool's {@code inputSchema}). */
  public JsonNode source() {
    return source.deepCopy();
  }

  public Validation validate(JsonNode parameters) {
    Objects.requireNonNull(parameters, "parameters");
    JsonNode copy = parameters.deepCopy();
    Result result =
        schema.walk(copy, true, context -> context.setWalkConfig(APPLY_PROPERTY_DEFAULTS));
    List<Error> errors = result.getErrors();
    List<Violation> violations = new ArrayList<>(errors.size());
    for (Error error : errors) {
      violations.add(new Violation(fieldOf(error), error.getMessage()));
    }
    if (hasNul(copy)) {
      findNul(copy, "", violations);
    }
    if (violations.isEmpty()) {
      return new Validation.Valid(copy);
    }
    violations.sort(Comparator.comparing(Violation::field).thenComparing(Violation::message));
    return new Validation.Invalid(violations);
  }

  /**
   * Refuses text holding U+0000 whatever the schema says: PostgreSQL cannot store it in a text
   * column, SQLite can. Refusing it here, before anything is claimed, gives the same answer on
   * every store and leaves the key free, instead of a tool failure on one store and a record on the
   * other.
   */
  /** Whether any text or property name holds U+0000; allocates nothing, unlike {@link #findNul}. */
  private static boolean hasNul(JsonNode node) {
    if (node.isTextual()) {
      return node.textValue().indexOf('\u0000') >= 0;
    }
    if (node.isObject()) {
      for (var field : node.properties()) {
        if (field.getKey().indexOf('\u0000') >= 0 || hasNul(field.getValue())) {
          return true;
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        if (hasNul(node.get(i))) {
          return true;
        }
      }
    }
    return false;
  }

  private static void findNul(JsonNode node, String pointer, List<Violation> violations) {
    if (node.isTextual()) {
      if (node.textValue().indexOf('\u0000') >= 0) {
        violations.add(new Violation(pointer, NUL_MESSAGE));
      }
    } else if (node.isObject()) {
      for (var field : node.properties()) {
        String at = pointer + "/" + field.getKey().replace("~", "~0").replace("/", "~1");
        if (field.getKey().indexOf('\u0000') >= 0) {
          violations.add(new Violation(pointer, "a property name " + NUL_MESSAGE));
        } else {
          findNul(field.getValue(), at, violations);
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        findNul(node.get(i), pointer + "/" + i, violations);
      }
    }
  }

  private static final String NUL_MESSAGE =
      "contains the NUL character (U+0000), which the ledger cannot store; remove it";

  private static String fieldOf(Error error) {
    String location =
        error.getInstanceLocation() == null ? "" : error.getInstanceLocation().toString();
    // A missing required property is reported at its parent; name the property itself.
    if ("required".equals(error.getKeyword()) && error.getProperty() != null) {
      return location + "/" + error.getProperty();
    }
    if ("additionalProperties".equals(error.getKeyword()) && error.getProperty() != null) {
      return location + "/" + error.getProperty();
    }
    return location;
  }
}
