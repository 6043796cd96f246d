package dev.toolledger.jdbc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.DownstreamStatus;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.core.fingerprint.Fingerprinter;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.protocol.Json;
import java.time.Duration;

/**
 * An external tool over a {@link FakeDownstream}: with or without outcome lookup, with or without
 * an idempotent downstream, with the lease a test needs.
 */
final class DownstreamTool implements ExternalTool {
  static final String VERSION = "1";

  private final String name;
  private final FakeDownstream downstream;
  private final boolean lookup;
  private final boolean idempotent;
  private final Duration lease;

  private DownstreamTool(
      String name, FakeDownstream downstream, boolean lookup, boolean idempotent, Duration lease) {
    this.name = name;
    this.downstream = downstream;
    this.lookup = lookup;
    this.idempotent = idempotent;
    this.lease = lease;
  }

  /** Neither outcome lookup nor an idempotent downstream: an uncertain effect stays UNKNOWN. */
  static DownstreamTool plain(String name, FakeDownstream downstream, Duration lease) {
    return new DownstreamTool(name, downstream, false, false, lease);
  }

  static DownstreamTool withLookup(String name, FakeDownstream downstream, Duration lease) {
    return new DownstreamTool(name, downstream, true, false, lease);
  }

  static DownstreamTool idempotent(String name, FakeDownstream downstream, Duration lease) {
    return new DownstreamTool(name, downstream, false, true, lease);
  }

  /** Parameters this tool accepts, with no defaults, so that they are fingerprinted as written. */
  static JsonNode params(String to) {
    return Json.object().put("to", to);
  }

  /** The intent the engine records for these parameters, for claims a test writes itself. */
  OperationIntent intent(JsonNode parameters) {
    return new OperationIntent(name, VERSION, Fingerprinter.fingerprint(name, VERSION, parameters));
  }

  @Override
  public ToolDescriptor descriptor() {
    return ToolDescriptor.builder(name, VERSION)
        .description("Sends something to the fake downstream.")
        .inputSchema(
            Json.parse(
                "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"to\"],"
                    + "\"properties\":{\"to\":{\"type\":\"string\",\"minLength\":1}}}"))
        .build();
  }

  @Override
  public Duration lease() {
    return lease;
  }

  @Override
  public EffectResult perform(EffectContext context, JsonNode parameters) throws Exception {
    return downstream.perform(context, idempotent);
  }

  @Override
  public boolean supportsLookup() {
    return lookup;
  }

  @Override
  public DownstreamStatus lookup(EffectContext context, JsonNode parameters) throws Exception {
    return downstream.lookup(context);
  }

  @Override
  public boolean idempotentDownstream() {
    return idempotent;
  }
}
