package dev.toolledger.core.schema;

import java.util.Objects;

/**
 * One reason a parameter object was refused.
 *
 * @param field JSON Pointer to the offending field ({@code /title}); empty for the object itself
 * @param message what is wrong, in words, without echoing the value
 */
public record Violation(String field, String message) {
  public Violation {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(message, "message");
  }
}
