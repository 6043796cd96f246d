package dev.toolledger.core.fingerprint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
    ObjectNode intent = JsonNodeFactory.instance.objectNode();
    intent.set("parameters", parameters);
    intent.put("tool", tool);
    intent.put("version", version);
    return new Fingerprint(sha256Hex(CanonicalJson.canonicalUtf8(intent)));
  }

  static String sha256Hex(byte[] bytes) {
    return HexFormat.of().formatHex(Sha256.digest().digest(bytes));
  }
}
