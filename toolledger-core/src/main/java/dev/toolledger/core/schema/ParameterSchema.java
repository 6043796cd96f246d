package dev.toolledger.core.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Result;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.PathType;
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
    try {
      Schema compiled = REGISTRY.getSchema(schema.deepCopy());
      compiled.initializeValidators();
      return new ParameterSchema(schema.deepCopy(), compiled);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "the tool's input schema is not valid: " + e.getMessage(), e);
    }
  }

  /** The schema as given, for publishing (for example as an MCP tool's {@code inputSchema}). */
  public JsonNode source() {
    return source.deepCopy();
  }

  public Validation validate(JsonNode parameters) {
    Objects.requireNonNull(parameters, "parameters");
    JsonNode copy = parameters.deepCopy();
    Result result =
        schema.walk(
            copy,
            true,
            context ->
                context.walkConfig(
                    walk ->
                        walk.applyDefaultsStrategy(
                            defaults ->
                                defaults
                                    .applyPropertyDefaults(true)
                                    .applyPropertyDefaultsIfNull(false)
                                    .applyArrayDefaults(false))));
    List<Error> errors = result.getErrors();
    if (errors.isEmpty()) {
      return new Validation.Valid(copy);
    }
    List<Violation> violations = new ArrayList<>(errors.size());
    for (Error error : errors) {
      violations.add(new Violation(fieldOf(error), error.getMessage()));
    }
    violations.sort(Comparator.comparing(Violation::field).thenComparing(Violation::message));
    return new Validation.Invalid(violations);
  }

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
