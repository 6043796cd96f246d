package dev.toolledger.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * A read-only view of the calling tenant's data, served at {@code GET /v1/{path}} to tokens with
 * the {@code read} scope (for example {@code GET /v1/notes}). It must return only rows of {@link
 * ReadContext#tenant()}: the tenant comes from the caller's token, never from the query.
 */
public interface ReadView {
  /** The path under {@code /v1/}: lowercase letters, digits and '-', for example {@code notes}. */
  String path();

  /**
   * Answers one read request.
   *
   * @param query the request's query parameters (first value of each)
   * @throws IllegalArgumentException for a bad query parameter: answered as 400 with its message
   */
  JsonNode read(ReadContext context, Map<String, String> query) throws Exception;
}
