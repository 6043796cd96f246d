package dev.toolledger.core.schema;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** The result of checking parameters against a tool's JSON Schema. */
public sealed interface Validation {

  /** The parameters are valid; {@code parameters} is a copy with the schema's defaults applied. */
  record Valid(JsonNode parameters) implements Validation {}

  /** The parameters break the schema; nothing may be executed or recorded for them. */
  record Invalid(List<Violation> violations) implements Validation {
    public Invalid {
      violations = List.copyOf(violations);
      if (violations.isEmpty()) {
        throw new IllegalArgumentException("an invalid result needs at least one violation");
      }
    }
  }
}
