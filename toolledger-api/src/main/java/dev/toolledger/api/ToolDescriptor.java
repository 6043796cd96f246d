package dev.toolledger.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a tool is: its name, the version of its contract, its parameter schema and its policies.
 *
 * <p>The version is part of every fingerprint. Change it when the meaning of the parameters or the
 * effect changes; a retry recorded under the old version then conflicts instead of silently
 * replaying an outcome that means something else today.
 *
 * @param name stable name, {@code [a-z0-9][a-z0-9._-]*}, at most 64 characters
 * @param version contract version, 1 to 32 visible characters
 * @param description what the tool does, for humans and models
 * @param inputSchema JSON Schema of the parameters object
 * @param retention how long an operation's record is kept after it completes; must cover the
 *     longest window in which a caller may still retry or recover the action. Default {@value
 *     #DEFAULT_RETENTION_DAYS} days.
 */
public record ToolDescriptor(
    String name, String version, String description, JsonNode inputSchema, Duration retention) {
  public static final int DEFAULT_RETENTION_DAYS = 7;
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(DEFAULT_RETENTION_DAYS);
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");
  private static final Pattern VERSION = Pattern.compile("[\\x21-\\x7E]{1,32}");

  public ToolDescriptor {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(inputSchema, "inputSchema");
    Objects.requireNonNull(retention, "retention");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "tool name '" + name + "' must be lowercase letters, digits, '.', '_' or '-' (1 to 64)");
    }
    if (!VERSION.matcher(version).matches()) {
      throw new IllegalArgumentException(
          "tool " + name + ": version must be 1 to 32 visible ASCII characters");
    }
    if (!inputSchema.isObject()) {
      throw new IllegalArgumentException("tool " + name + ": inputSchema must be a JSON object");
    }
    if (retention.isNegative() || retention.isZero()) {
      throw new IllegalArgumentException("tool " + name + ": retention must be positive");
    }
    inputSchema = inputSchema.deepCopy();
  }

  public static Builder builder(String name, String version) {
    return new Builder(name, version);
  }

  @Override
  public JsonNode inputSchema() {
    return inputSchema.deepCopy();
  }

  /** Builds a descriptor; {@link #build()} rejects bad options naming the option at fault. */
  public static final class Builder {
    private final String name;
    private final String version;
    private String description = "";
    private JsonNode inputSchema;
    private Duration retention = DEFAULT_RETENTION;

    private Builder(String name, String version) {
      this.name = name;
      this.version = version;
    }

    public Builder description(String description) {
      this.description = description;
      return this;
    }

    public Builder inputSchema(JsonNode inputSchema) {
      this.inputSchema = inputSchema;
      return this;
    }

    /** Default {@value ToolDescriptor#DEFAULT_RETENTION_DAYS} days. */
    public Builder retention(Duration retention) {
      this.retention = retention;
      return this;
    }

    public ToolDescriptor build() {
      if (inputSchema == null) {
        throw new IllegalArgumentException("tool " + name + ": inputSchema is required");
      }
      return new ToolDescriptor(name, version, description, inputSchema, retention);
    }
  }
}
