package dev.toolledger.declarative;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.PathType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a tool's {@code parameters} where they are written: an object schema, valid against the
 * JSON Schema meta-schema of its dialect (2020-12 unless {@code $schema} names draft 4, 6, 7 or
 * 2019-09), and compilable by the validator the engine uses. A schema naming another dialect is
 * only compiled: its meta-schema would have to be fetched.
 */
final class ParametersCheck {
  private static final SchemaRegistry REGISTRY =
      SchemaRegistry.withDefaultDialect(
          SpecificationVersion.DRAFT_2020_12,
          builder ->
              builder.schemaRegistryConfig(
                  SchemaRegistryConfig.builder().pathType(PathType.JSON_POINTER).build()));

  private static final Map<SpecificationVersion, Schema> META_SCHEMAS = new LinkedHashMap<>();

  private ParametersCheck() {}

  /** Every error of the schema, each at the field it is about; empty when it is usable. */
  static List<DefinitionException> check(Definition definition, JsonNode schema) {
    List<DefinitionException> errors = new ArrayList<>();
    if (!schema.isObject()) {
      errors.add(
          definition.error(
              "/parameters", "must be a JSON Schema object ({type: object, properties: ...})"));
      return errors;
    }
    JsonNode type = schema.get("type");
    if (type == null) {
      errors.add(definition.error("/parameters", "must describe an object: add 'type: object'"));
    } else if (!"object".equals(type.textValue())) {
      errors.add(
          definition.error(
              "/parameters/type", "must be 'object': a tool's parameters are a JSON object"));
    }
    JsonNode dialect = schema.get("$schema");
    SpecificationVersion version =
        dialect == null
            ? SpecificationVersion.DRAFT_2020_12
            : SpecificationVersion.fromDialectId(dialect.asText()).orElse(null);
    if (version != null) {
      Map<String, String> firstByField = new LinkedHashMap<>();
      for (Error error : metaSchema(version).validate(schema)) {
        String at =
            error.getInstanceLocation() == null ? "" : error.getInstanceLocation().toString();
        firstByField.putIfAbsent(at, error.getMessage());
      }
      firstByField.forEach(
          (at, message) ->
              errors.add(
                  definition.error("/parameters" + at, "not a valid JSON Schema: " + message)));
    }
    if (errors.isEmpty()) {
      try {
        REGISTRY.getSchema(schema.deepCopy()).initializeValidators();
      } catch (RuntimeException e) {
        errors.add(definition.error("/parameters", "not a usable JSON Schema: " + e.getMessage()));
      }
    }
    return errors;
  }

  private static synchronized Schema metaSchema(SpecificationVersion version) {
    return META_SCHEMAS.computeIfAbsent(
        version,
        v -> {
          Schema meta =
              SchemaRegistry.withDefaultDialect(
                      v,
                      builder ->
                          builder.schemaRegistryConfig(
                              SchemaRegistryConfig.builder()
                                  .pathType(PathType.JSON_POINTER)
                                  .build()))
                  .getSchema(SchemaLocation.of(v.getDialectId()));
          meta.initializeValidators();
          return meta;
        });
  }
}
