package dev.toolledger.core.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.TenantId;
import dev.toolledger.protocol.OperationKey;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One request to run a tool under an operation key.
 *
 * @param tenant the authenticated tenant
 * @param key the operation key the execution layer keeps for this business action
 * @param tool the tool's name
 * @param parameters the raw parameters as received
 * @param maxWait how long the caller is willing to wait for a concurrent execution of the same key
 *     ({@code Prefer: wait=N}); capped by the engine's configured wait, which applies when empty
 */
public record Invocation(
    TenantId tenant,
    OperationKey key,
    String tool,
    JsonNode parameters,
    Optional<Duration> maxWait) {
  public Invocation {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(parameters, "parameters");
    Objects.requireNonNull(maxWait, "maxWait");
    maxWait.ifPresent(
        wait -> {
          if (wait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative");
          }
        });
  }

  public static Invocation of(TenantId tenant, OperationKey key, String tool, JsonNode parameters) {
    return new Invocation(tenant, key, tool, parameters, Optional.empty());
  }
}
