package dev.toolledger.jmh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.core.fingerprint.Fingerprint;
import dev.toolledger.core.fingerprint.Fingerprinter;
import dev.toolledger.core.schema.ParameterSchema;
import dev.toolledger.core.schema.Validation;
import dev.toolledger.protocol.CanonicalJson;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-request CPU work of the ledger that does not touch the database: fingerprinting a 1 KiB
 * parameter object (RFC 8785 canonicalization + SHA-256), validating it against a schema with
 * defaults, and validating an operation key.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class FingerprintBenchmark {
  private JsonNode parameters;
  private ParameterSchema schema;
  private String keyHeader;

  @Setup
  public void setUp() {
    ObjectNode object = Json.object();
    object.put("title", "Quarterly planning notes");
    object.put("body", "x".repeat(626));
    object.put("priority", 3);
    object.put("ratio", 0.25);
    object.put("archived", false);
    ObjectNode nested = object.putObject("meta");
    for (int i = 0; i < 10; i++) {
      nested.put("field" + i, "value number " + i);
    }
    object.putArray("tags").add("planning").add("q3").add("team").add(42).add(1.5e3);
    parameters = object;
    int size = CanonicalJson.canonicalize(parameters).getBytes(StandardCharsets.UTF_8).length;
    if (size < 1024 || size > 1100) {
      throw new IllegalStateException("the parameter object should be about 1 KiB, not " + size);
    }
    schema =
        ParameterSchema.compile(
            Json.parse(
                "{\"type\":\"object\",\"required\":[\"title\"],\"properties\":{"
                    + "\"title\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200},"
                    + "\"body\":{\"type\":\"string\",\"default\":\"\"},"
                    + "\"priority\":{\"type\":\"integer\",\"default\":1},"
                    + "\"ratio\":{\"type\":\"number\"},\"archived\":{\"type\":\"boolean\"},"
                    + "\"meta\":{\"type\":\"object\"},\"tags\":{\"type\":\"array\"},"
                    + "\"colour\":{\"type\":\"string\",\"default\":\"blue\"}}}"));
    keyHeader = "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"";
  }

  /** The fingerprint of a 1 KiB parameter object: canonical JSON and SHA-256. Target < 20 µs. */
  @Benchmark
  public Fingerprint fingerprint1KiB() {
    return Fingerprinter.fingerprint("create-note", "1", parameters);
  }

  /** Canonicalization alone. */
  @Benchmark
  public String canonicalize1KiB() {
    return CanonicalJson.canonicalize(parameters);
  }

  /** Schema validation with defaults applied (on a copy), of the same object. */
  @Benchmark
  public Validation validate1KiB() {
    return schema.validate(parameters);
  }

  /** Reading and validating an Idempotency-Key header (quoted form). */
  @Benchmark
  public OperationKey keyFromHeader() {
    return OperationKey.fromHeader(keyHeader);
  }
}
