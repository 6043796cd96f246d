package dev.toolledger.server.mcp;

import dev.toolledger.protocol.InvalidOperationKeyException;
import dev.toolledger.protocol.OperationKey;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Finds the operation key of a {@code tools/call}: in the request's {@code _meta} under {@value
 * McpConventions#OPERATION_KEY}, or in the POST's {@code Idempotency-Key} header. Never in the
 * arguments: those are the model's, the key is the execution layer's.
 */
final class OperationKeys {
  private OperationKeys() {}

  /** What was found. */
  sealed interface Resolution {
    /** A key to run under; {@code minted} when the server made it up for an unkeyed call. */
    record Resolved(OperationKey key, boolean minted) implements Resolution {}

    /** No key was sent and the tool requires one. */
    record Missing() implements Resolution {}

    /** A key was sent but is unusable; {@code reason} says why, without echoing it. */
    record Invalid(String reason) implements Resolution {}
  }

  static Resolution resolve(
      Map<String, Object> meta, List<String> headerValues, boolean mintWhenAbsent) {
    OperationKey fromMeta = null;
    Object raw = meta == null ? null : meta.get(McpConventions.OPERATION_KEY);
    if (raw != null) {
      if (!(raw instanceof String text)) {
        return new Resolution.Invalid(
            "_meta \"" + McpConventions.OPERATION_KEY + "\" must be a string");
      }
      try {
        fromMeta = OperationKey.of(text);
      } catch (InvalidOperationKeyException e) {
        return new Resolution.Invalid(
            "_meta \"" + McpConventions.OPERATION_KEY + "\": " + e.getMessage());
      }
    }
    OperationKey fromHeader = null;
    if (headerValues.size() > 1) {
      return new Resolution.Invalid(
          "send exactly one " + McpConventions.IDEMPOTENCY_KEY_HEADER + " header");
    }
    if (headerValues.size() == 1) {
      try {
        fromHeader = OperationKey.fromHeader(headerValues.get(0));
      } catch (InvalidOperationKeyException e) {
        return new Resolution.Invalid(
            McpConventions.IDEMPOTENCY_KEY_HEADER + " header: " + e.getMessage());
      }
    }
    if (fromMeta != null && fromHeader != null && !fromMeta.equals(fromHeader)) {
      return new Resolution.Invalid(
          "the key in _meta \""
              + McpConventions.OPERATION_KEY
              + "\" and the "
              + McpConventions.IDEMPOTENCY_KEY_HEADER
              + " header differ; send one key, or the same key in both");
    }
    OperationKey key = fromMeta != null ? fromMeta : fromHeader;
    if (key != null) {
      return new Resolution.Resolved(key, false);
    }
    if (mintWhenAbsent) {
      return new Resolution.Resolved(OperationKey.of("mcp-" + UUID.randomUUID()), true);
    }
    return new Resolution.Missing();
  }
}
