package dev.toolledger.declarative.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.Tool;
import dev.toolledger.declarative.DefinitionException;
import dev.toolledger.declarative.ToolsFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a {@code kind: http} entry must look like, and how each mistake is reported. */
class HttpToolDefinitionTest {
  /** Lines 1 to 14; a test appends its own lines from line 15 on. */
  private static final String BASE =
      """
      tools:
        - kind: http
          name: create-invoice
          version: "1"
          parameters:
            type: object
            required: [customer, amount]
            properties:
              customer: {type: string}
              amount: {type: integer}
              note: {type: string}
          request:
            method: POST
            url: http://127.0.0.1:8089/customers/{customer}/invoices
      """;

  private static final Map<String, String> ENV = Map.of("BILLING_TOKEN", "s3cr3t-value");

  @TempDir Path dir;

  private Path write(String yaml) throws Exception {
    Path file = dir.resolve("tools.yaml");
    Files.writeString(file, yaml);
    return file;
  }

  private List<Tool> load(String yaml) throws Exception {
    return ToolsFile.load(write(yaml), ENV, List.of(new HttpToolKind()));
  }

  /** The refusal of {@code yaml}; asserts it names the file. */
  private String refusal(String yaml) throws Exception {
    Path file = write(yaml);
    DefinitionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            DefinitionException.class,
            () -> ToolsFile.load(file, ENV, List.of(new HttpToolKind())));
    assertThat(e.getMessage()).startsWith(file.toString() + ":");
    return e.getMessage().replace(file.toString(), "tools.yaml");
  }

  private String withRequest(String lines) {
    return BASE + lines.stripTrailing().indent(6);
  }

  private String withEntry(String lines) {
    return BASE + lines.stripTrailing().indent(4);
  }

  @Test
  void validEntryBecomesAnExternalToolWithItsPolicies() throws Exception {
    ExternalTool tool =
        (ExternalTool)
            load(withRequest("headers: {Authorization: \"Bearer ${BILLING_TOKEN}\"}")).get(0);

    assertThat(tool.name()).isEqualTo("create-invoice");
    assertThat(tool.supportsLookup()).isFalse();
    assertThat(tool.idempotentDownstream()).isFalse();
    assertThat(tool.lease()).isEqualTo(Duration.ofSeconds(30));
    assertThat(tool.toString()).doesNotContain("s3cr3t-value").contains("create-invoice");
  }

  @Test
  void lookupAndIdempotentUpstreamAreReadFromTheEntry() throws Exception {
    ExternalTool tool =
        (ExternalTool)
            load(withEntry(
                    """
                        idempotent-upstream: true
                        lease: 45s
                        lookup:
                          url: http://127.0.0.1:8089/invoices/by-key/{downstreamKey}
                          absent: [404]
                        """))
                .get(0);

    assertThat(tool.supportsLookup()).isTrue();
    assertThat(tool.idempotentDownstream()).isTrue();
    assertThat(tool.lease()).isEqualTo(Duration.ofSeconds(45));
  }

  @Test
  void theKindIsRegisteredForTheServiceLoader() {
    assertThat(ToolsFile.builtInKinds()).anyMatch(kind -> kind instanceof HttpToolKind);
    assertThat(new HttpToolKind().name()).isEqualTo("http");
  }

  @Test
  void unknownFieldsAreRefusedWhereTheyAreWritten() throws Exception {
    assertThat(refusal(withEntry("colour: blue")))
        .contains("tools.yaml:15: tools[0].colour: unknown field");
    assertThat(refusal(withRequest("retries: 3")))
        .contains("tools.yaml:15: tools[0].request.retries: unknown field");
    assertThat(refusal(withEntry("outcomes: {sucess: [201]}")))
        .contains("tools.yaml:15: tools[0].outcomes.sucess: unknown field");
    assertThat(
            refusal(
                withEntry(
                    "lookup:\n  url: http://127.0.0.1:8089/by-key/{downstreamKey}\n  pending: [202]")))
        .contains("tools.yaml:17: tools[0].lookup.pending: unknown field");
  }

  @Test
  void methodThatIsNotAWriteIsRefused() throws Exception {
    assertThat(refusal(BASE.replace("method: POST", "method: GET")))
        .contains("tools.yaml:13: tools[0].request.method: 'GET' is not allowed here")
        .contains("POST, PUT, PATCH, DELETE");
  }

  @Test
  void urlThatIsNotHttpIsRefused() throws Exception {
    assertThat(refusal(BASE.replace("http://127.0.0.1:8089", "ftp://127.0.0.1")))
        .contains("tools.yaml:14: tools[0].request.url: must start with http:// or https://");
  }

  @Test
  void urlPlaceholderThatIsNotAParameterIsRefused() throws Exception {
    assertThat(refusal(BASE.replace("{customer}", "{client}")))
        .contains(
            "tools.yaml:14: tools[0].request.url: {client} is not a parameter; the parameters'"
                + " properties are amount, customer, note");
  }

  @Test
  void urlPlaceholderOfAnOptionalParameterIsRefused() throws Exception {
    assertThat(refusal(BASE.replace("{customer}", "{note}")))
        .contains("tools.yaml:14: tools[0].request.url: {note} must name a required parameter");
  }

  @Test
  void downstreamKeyIsOnlyForTheLookupUrl() throws Exception {
    assertThat(refusal(BASE.replace("/invoices", "/invoices/{downstreamKey}")))
        .contains(
            "tools.yaml:14: tools[0].request.url: {downstreamKey} is only available in lookup.url");
  }

  @Test
  void hostCannotBeTemplatedAndCredentialsCannotBeInTheUrl() throws Exception {
    assertThat(refusal(BASE.replace("127.0.0.1:8089", "{customer}.example")))
        .contains("tools.yaml:14: tools[0].request.url: the host and port cannot be templated");
    assertThat(refusal(BASE.replace("127.0.0.1:8089", "billing:pw@127.0.0.1:8089")))
        .contains("tools.yaml:14: tools[0].request.url: must not carry credentials")
        .doesNotContain("billing:pw");
  }

  @Test
  void inlineSecretsInSensitiveHeadersAreRefusedWithoutRepeatingThem() throws Exception {
    for (String header :
        List.of(
            "Authorization: \"Bearer sk_live_abc123\"",
            "X-Api-Key: sk_live_abc123",
            "Cookie: \"session=sk_live_abc123\"",
            "Proxy-Authorization: \"Basic sk_live_abc123\"",
            "X-Billing-Token: sk_live_abc123",
            "X-Client-Secret: \"sk_live_abc123${BILLING_TOKEN}\"")) {
      String name = header.substring(0, header.indexOf(':'));
      assertThat(refusal(withRequest("headers:\n  " + header)))
          .contains(
              "tools.yaml:16: tools[0].request.headers." + name + ": looks like an inline secret")
          .doesNotContain("sk_live_abc123");
    }
  }

  @Test
  void headersThatAreNotSecretsMayBeLiteral() throws Exception {
    assertThat(load(withRequest("headers: {X-Tenant-Region: eu-west, Accept: application/json}")))
        .hasSize(1);
  }

  @Test
  void unsetEnvironmentVariableIsNamed() throws Exception {
    assertThat(refusal(withRequest("headers: {Authorization: \"Bearer ${MISSING_TOKEN}\"}")))
        .contains(
            "tools.yaml:15: tools[0].request.headers.Authorization: environment variable"
                + " MISSING_TOKEN is not set");
  }

  @Test
  void idempotencyHeaderCannotAlsoBeAConfiguredHeader() throws Exception {
    assertThat(refusal(withRequest("headers: {Idempotency-Key: fixed}")))
        .contains(
            "tools.yaml:15: tools[0].request.headers.Idempotency-Key: Idempotency-Key is the"
                + " idempotency header");
  }

  @Test
  void restrictedHeadersAreRefused() throws Exception {
    assertThat(refusal(withRequest("headers: {Host: billing.example}")))
        .contains("tools.yaml:15: tools[0].request.headers.Host: Host is set by the HTTP client");
  }

  @Test
  void overlappingOutcomeClassesAreRefused() throws Exception {
    assertThat(refusal(withEntry("outcomes: {not-done: [409, 503]}")))
        .contains(
            "tools.yaml:15: tools[0].outcomes.not-done: status 409 would be in both"
                + " business-error [400, 402, 404, 409, 422] (default) and not-done [409, 503]");
    assertThat(refusal(withEntry("outcomes:\n  success: [2xx]\n  business-error: [201, 4xx]")))
        .contains(
            "tools.yaml:17: tools[0].outcomes.business-error: status 201 would be in both success");
    assertThat(
            refusal(
                withEntry(
                    "lookup:\n  url: http://127.0.0.1:8089/k/{downstreamKey}\n"
                        + "  found: [200]\n  absent: [2xx]")))
        .contains("tools[0].lookup.absent: status 200 would be in both found [200]");
  }

  @Test
  void statusesOutsideTheRangeAreRefused() throws Exception {
    assertThat(refusal(withEntry("outcomes:\n  success: [201, 600, 1xx]")))
        .contains("tools.yaml:16: tools[0].outcomes.success.1: '600' is not a status")
        .contains("tools[0].outcomes.success.2: '1xx' is not a status");
  }

  @Test
  void badDurationsAreRefused() throws Exception {
    assertThat(refusal(withRequest("timeout: 5 seconds")))
        .contains(
            "tools.yaml:15: tools[0].request.timeout: '5 seconds' is not a positive duration");
    assertThat(refusal(withRequest("connect-timeout: 0s")))
        .contains("tools[0].request.connect-timeout: '0s' is not a positive duration");
    assertThat(
            refusal(
                withRequest("timeout: 20s")
                    + "    lease: 30s\n    lookup:\n"
                    + "      url: http://127.0.0.1:8089/k/{downstreamKey}\n"))
        .contains(
            "tools.yaml:16: tools[0].lease: the lease (30000 ms) must be longer than the"
                + " request timeout twice");
  }

  @Test
  void idempotentUpstreamNeedsTheIdempotencyHeader() throws Exception {
    assertThat(refusal(withRequest("idempotency-header: none") + "    idempotent-upstream: true\n"))
        .contains(
            "tools.yaml:16: tools[0].idempotent-upstream: cannot be true with"
                + " idempotency-header: none");
  }

  @Test
  void bodyPlaceholdersMustBeParameters() throws Exception {
    assertThat(refusal(withRequest("body: {amount: \"{amount}\", memo: \"for {client}\"}")))
        .contains("tools.yaml:15: tools[0].request.body.memo: {client} is not a parameter");
    assertThat(load(withRequest("body: {amount: \"{amount}\", note: \"{note}\"}"))).hasSize(1);
  }

  @Test
  void everyErrorOfAnEntryIsReportedAtOnce() throws Exception {
    Path file =
        write(
            BASE.replace("method: POST", "method: FETCH")
                + "      timeout: soon\n      colour: red\n");
    DefinitionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            DefinitionException.class,
            () -> ToolsFile.load(file, ENV, List.of(new HttpToolKind())));
    assertThat(e.errors()).hasSizeGreaterThanOrEqualTo(3);
  }

  @Test
  void missingRequestIsRefused() throws Exception {
    String yaml = BASE.substring(0, BASE.indexOf("    request:"));
    assertThatThrownBy(() -> load(yaml))
        .isInstanceOf(DefinitionException.class)
        .hasMessageContaining("tools[0].request: is required");
  }
}
