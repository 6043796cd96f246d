package dev.toolledger.declarative.http;

import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.Tool;
import dev.toolledger.declarative.DefinitionException;
import dev.toolledger.declarative.ToolsFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The worked example of docs/declarative-http-tools.md, loaded by the real tools-file loader. */
final class InvoiceTools {
  /** The tools file of the documentation, verbatim; tests only change the upstream's port. */
  static final String EXAMPLE =
      """
      tools:
        - kind: http
          name: create-invoice
          version: "1"
          description: Creates an invoice in the billing service.
          parameters:
            type: object
            required: [customer, amount]
            additionalProperties: false
            properties:
              customer: {type: string}
              amount: {type: integer, minimum: 1}
          request:
            method: POST
            url: http://127.0.0.1:8089/customers/{customer}/invoices
            body: {amount: "{amount}", currency: EUR}
            headers: {Authorization: "Bearer ${BILLING_TOKEN}"}
            timeout: 5s
          idempotent-upstream: true
      """;

  static final Map<String, String> ENVIRONMENT = Map.of("BILLING_TOKEN", "s3cr3t-billing-token");

  private InvoiceTools() {}

  /** Writes {@code yaml} (with the upstream's address) into {@code dir} and loads its one tool. */
  static ExternalTool load(Path dir, String yaml, InvoiceService upstream)
      throws IOException, DefinitionException {
    Path file = dir.resolve("tools-" + System.nanoTime() + ".yaml");
    Files.writeString(file, yaml.replace("127.0.0.1:8089", upstream.address()));
    List<Tool> tools = ToolsFile.load(file, ENVIRONMENT, List.of(new HttpToolKind()));
    return (ExternalTool) tools.get(0);
  }

  /**
   * The example with changes: {@code idempotent} replaces idempotent-upstream, {@code extra} is
   * appended to the entry (lookup, lease), {@code timeout} replaces the request timeout.
   */
  static String variant(boolean idempotent, String timeout, String extra) {
    String yaml =
        EXAMPLE
            .replace("idempotent-upstream: true", "idempotent-upstream: " + idempotent)
            .replace("timeout: 5s", "timeout: " + timeout + "\n      connect-timeout: 200ms");
    return yaml + extra.stripTrailing().indent(4);
  }

  static final String LOOKUP =
      """
      lookup:
        url: http://127.0.0.1:8089/invoices/by-key/{downstreamKey}
        found: [200]
      """;
}
