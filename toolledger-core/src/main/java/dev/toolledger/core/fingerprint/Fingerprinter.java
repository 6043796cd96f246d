package dev.toolledger.core.fingerprint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.CanonicalJson;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Computes the fingerprint of an intent: SHA-256 over the RFC 8785 canonical JSON of
 *
 * <pre>{"parameters": &lt;validated parameters, defaults applied&gt;, "tool": name, "version": v}
 * </pre>
 *
 * <p>Callers pass parameters that have already been validated against the tool's schema with its
 * defaults applied, so an omitted optional field and the same field sent with its default value
 * fingerprint alike. Key order, whitespace and number spelling never matter (see {@link
 * CanonicalJson}).
 */
public final class Fingerprinter {
  private Fingerprinter() {}

  public static Fingerprint fingerprint(String tool, String version, JsonNode parameters) {
    // The canonical form of {"parameters": ..., "tool": ..., "version": ...}, written directly
    // (its three keys are already in canonical order) rather than through an intent object.
    StringBuilder out = new StringBuilder(256);
    out.append("{\"parameters\":");
    if (parameters == null) {
      out.append("null");
    } else {
      CanonicalJson.write(parameters, out);
    }
    out.append(",\"tool\":");
    text(tool, out);
    out.append(",\"version\":");
    text(version, out);
    out.append('}');
    return new Fingerprint(sha256Hex(out.toString().getBytes(StandardCharsets.UTF_8)));
  }

  /** A string as the intent object held it: {@code null} when absent, as Jackson's put did. */
  private static void text(String value, StringBuilder out) {
    if (value == null) {
      out.append("null");
    } else {
      CanonicalJson.writeString(value, out);
    }
  }

  static String sha256Hex(byte[] bytes) {
    return HexFormat.of().formatHex(Sha256.digest().digest(bytes));
  }
}
