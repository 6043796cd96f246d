package dev.toolledger.declarative;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.Tool;
import dev.toolledger.declarative.sql.SqlTool;
import dev.toolledger.declarative.sql.SqlToolKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolsFileTest {
  private static final String ORDER =
      """
      tools:
        - kind: sql
          name: create-order
          version: "1"
          description: Creates an order.
          parameters:
            type: object
            required: [sku, qty]
            additionalProperties: false
            properties:
              sku: {type: string}
              qty: {type: integer, minimum: 1}
          statement: INSERT INTO orders (tenant, sku, qty) VALUES (:tenant, :sku, :qty) RETURNING id, sku, qty
          result: row
      """;

  @TempDir Path dir;

  private Path write(String name, String content) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, content);
    return file;
  }

  private static List<Tool> load(Path file) throws DefinitionException {
    return ToolsFile.load(file, Map.of(), List.of(new SqlToolKind()));
  }

  /** The errors of loading {@code content} as tools.yaml, each without the file name. */
  private List<String> errors(String content) throws IOException {
    return errors("tools.yaml", content);
  }

  private List<String> errors(String name, String content) throws IOException {
    Path file = write(name, content);
    try {
      load(file);
    } catch (DefinitionException e) {
      assertThat(e.getMessage()).isEqualTo(String.join("\n", e.errors()));
      assertThat(e.errors()).allSatisfy(error -> assertThat(error).startsWith(file + ":"));
      return e.errors().stream().map(error -> error.substring(file.toString().length())).toList();
    }
    throw new AssertionError("the file was accepted");
  }

  @Test
  void loadsASqlToolFromYaml() throws Exception {
    List<Tool> tools = load(write("tools.yaml", ORDER));

    assertThat(tools).hasSize(1);
    SqlTool tool = (SqlTool) tools.get(0);
    assertThat(tool.name()).isEqualTo("create-order");
    assertThat(tool.descriptor().version()).isEqualTo("1");
    assertThat(tool.descriptor().description()).isEqualTo("Creates an order.");
    assertThat(tool.descriptor().retention()).isEqualTo(Duration.ofDays(7));
    assertThat(tool.descriptor().inputSchema().at("/properties/qty/minimum").asInt()).isEqualTo(1);
    assertThat(tool.result()).isEqualTo(SqlTool.Result.ROW);
    assertThat(tool.status()).isEqualTo(201);
  }

  @Test
  void loadsTheSameToolFromJson() throws Exception {
    String json =
        """
        {"tools": [{
          "kind": "sql", "name": "create-order", "version": "1",
          "parameters": {"type": "object", "properties": {"sku": {"type": "string"}}},
          "statement": "INSERT INTO orders (tenant, sku) VALUES (:tenant, :sku)",
          "retention": "12h"
        }]}
        """;

    SqlTool tool = (SqlTool) load(write("tools.json", json)).get(0);

    assertThat(tool.name()).isEqualTo("create-order");
    assertThat(tool.descriptor().retention()).isEqualTo(Duration.ofHours(12));
    assertThat(tool.result()).isEqualTo(SqlTool.Result.COUNT);
    assertThat(tool.status()).isEqualTo(200);
  }

  @Test
  void theSqlKindIsBuiltIn() throws Exception {
    assertThat(ToolsFile.builtInKinds()).extracting(ToolKind::name).contains("sql");
    assertThat(ToolsFile.load(write("tools.yml", ORDER)))
        .extracting(Tool::name)
        .containsExactly("create-order");
  }

  @Test
  void retentionIsIsoOrShorthand() throws Exception {
    assertThat(
            load(write("a.yaml", ORDER + "    retention: P3D\n")).get(0).descriptor().retention())
        .isEqualTo(Duration.ofDays(3));
    assertThat(
            load(write("b.yaml", ORDER + "    retention: 30m\n")).get(0).descriptor().retention())
        .isEqualTo(Duration.ofMinutes(30));
    assertThat(errors(ORDER + "    retention: soon\n"))
        .containsExactly(
            ":15: tools[0].retention: 'soon' is not a duration; write ISO-8601 (P7D, PT12H) or"
                + " 7d, 12h, 30m, 45s");
    assertThat(errors(ORDER + "    retention: PT0S\n"))
        .containsExactly(":15: tools[0].retention: must be positive");
  }

  @Test
  void anIntegerVersionIsReadAsText() throws Exception {
    Tool tool = load(write("tools.yaml", ORDER.replace("version: \"1\"", "version: 2"))).get(0);
    assertThat(tool.descriptor().version()).isEqualTo("2");
    assertThat(errors(ORDER.replace("version: \"1\"", "version: 1.10")))
        .containsExactly(":4: tools[0].version: must be a string (quote it: \"1.2\")");
  }

  @Test
  void unknownTopLevelFieldsAreRefused() throws Exception {
    assertThat(errors("version: 2\n" + ORDER + "extra: true\n"))
        .containsExactly(
            ":1: version: unknown top-level field; a tools file has 'tools' and optionally 'tables'",
            ":16: extra: unknown top-level field; a tools file has 'tools' and optionally 'tables'");
  }

  @Test
  void aFileWithoutToolsIsRefused() throws Exception {
    assertThat(errors("{}\n")).containsExactly(":1: tools: is required: a list of tool entries");
    assertThat(errors("\n\ntools: {kind: sql}\n"))
        .containsExactly(":3: tools: must be a list of tool entries");
  }

  @Test
  void unknownFieldsInAnEntryAreRefused() throws Exception {
    assertThat(errors(ORDER.replace("result: row", "results: row")))
        .singleElement()
        .asString()
        .startsWith(":14: tools[0].results: unknown field; a sql tool has ")
        .contains("statement", "result", "status", "retention");
  }

  @Test
  void unknownOrMissingKindIsRefused() throws Exception {
    assertThat(errors(ORDER.replace("kind: sql", "kind: soap")))
        .containsExactly(":2: tools[0].kind: unknown kind 'soap'; one of: sql");
    assertThat(errors(ORDER.replace("- kind: sql\n   ", "-")))
        .containsExactly(":2: tools[0].kind: is required; one of: sql");
  }

  @Test
  void missingNameAndVersionAreBothReported() throws Exception {
    String content =
        ORDER.replace("    name: create-order\n", "").replace("    version: \"1\"\n", "");
    assertThat(errors(content))
        .containsExactly(
            ":2: tools[0].name: is required",
            ":2: tools[0].version: is required (for example \"1\")");
  }

  @Test
  void namesFollowTheDescriptorRules() throws Exception {
    assertThat(errors(ORDER.replace("name: create-order", "name: Create_Order")))
        .containsExactly(
            ":3: tools[0].name: tool name 'Create_Order' must be lowercase letters, digits, '.',"
                + " '_' or '-' (1 to 64)");
    assertThat(errors(ORDER.replace("version: \"1\"", "version: \"one two\"")))
        .containsExactly(":4: tools[0].version: must be 1 to 32 visible ASCII characters");
  }

  @Test
  void parametersMustBeAValidObjectSchema() throws Exception {
    assertThat(errors(ORDER.replace("qty: {type: integer, minimum: 1}", "qty: {type: integr}")))
        .singleElement()
        .asString()
        .startsWith(":12: tools[0].parameters.properties.qty.type: not a valid JSON Schema: ");
    assertThat(errors(ORDER.replace("      type: object\n", "      type: array\n")))
        .containsExactly(
            ":7: tools[0].parameters.type: must be 'object': a tool's parameters are a JSON"
                + " object");
    assertThat(errors(ORDER.replace("      type: object\n", "")))
        .containsExactly(":6: tools[0].parameters: must describe an object: add 'type: object'");
    assertThat(errors(ORDER.replace("required: [sku, qty]", "required: sku")))
        .singleElement()
        .asString()
        .startsWith(":8: tools[0].parameters.required: not a valid JSON Schema: ");
  }

  @Test
  void missingParametersAreRefused() throws Exception {
    String content =
        """
        tools:
          - kind: sql
            name: touch
            version: "1"
            statement: UPDATE t SET n = n + 1 WHERE tenant = :tenant
        """;
    assertThat(errors(content))
        .containsExactly(
            ":2: tools[0].parameters: is required: a JSON Schema of an object ({type: object,"
                + " ...})");
  }

  @Test
  void duplicateNamesAreRefusedAtTheSecond() throws Exception {
    String second = ORDER.substring(ORDER.indexOf("  - kind"));
    assertThat(errors(ORDER + second))
        .containsExactly(
            ":16: tools[1].name: another tool in this file is named 'create-order' (tools[0],"
                + " line 3); tool names must be unique");
  }

  @Test
  void everyErrorOfEveryEntryIsReportedAtOnce() throws Exception {
    String content =
        """
        tools:
          - kind: soap
            name: a
          - kind: sql
            name: B
            version: "1"
            parameters: {type: object, properties: {tenant: {type: string}}}
            statement: "DELETE FROM t WHERE tenant = :tenant AND id = :id; DROP TABLE t"
            result: rows
          - kind: sql
            name: c
            version: "1"
            parameters: {type: object}
            statement: UPDATE t SET n = 1
            result: row
            status: 302
        """;
    assertThat(errors(content))
        .containsExactly(
            ":2: tools[0].kind: unknown kind 'soap'; one of: sql",
            ":5: tools[1].name: tool name 'B' must be lowercase letters, digits, '.', '_' or '-'"
                + " (1 to 64)",
            ":7: tools[1].parameters.properties.tenant: 'tenant' is reserved: :tenant is always"
                + " the authenticated tenant; name this parameter otherwise",
            ":8: tools[1].statement: holds more than one statement (a ';' at character 50 is"
                + " followed by more SQL); a SQL tool runs exactly one statement: write a Java"
                + " tool for more",
            ":8: tools[1].statement: :id is neither a property of parameters nor :tenant or :now;"
                + " declare it under parameters.properties",
            ":9: tools[1].result: unknown result 'rows'; one of: row, count",
            ":15: tools[2].result: row needs a RETURNING clause in the statement (or write"
                + " result: count)",
            ":16: tools[2].status: must be a success status, 200 to 299");
  }

  @Test
  void countWithReturningAndPositionalPlaceholdersAreRefused() throws Exception {
    assertThat(errors(ORDER.replace("result: row", "result: count")))
        .containsExactly(
            ":14: tools[0].result: count cannot be used with a RETURNING clause; write result:"
                + " row");
    assertThat(errors(ORDER.replace(":qty)", "?)")))
        .containsExactly(
            ":13: tools[0].statement: '?' at character 62 is not supported: name every parameter"
                + " (:name), and write PostgreSQL's jsonb operators ? ?| ?& as jsonb_exists(...)"
                + " and its relatives");
    assertThat(errors(ORDER.replace("(:tenant, :sku, :qty)", "($1, $2, :qty)")))
        .hasSize(2)
        .allSatisfy(error -> assertThat(error).contains("is not supported: name every parameter"));
  }

  private List<String> statementErrors(String statement) throws IOException {
    return errors(
        ORDER
            .replaceAll(
                "    statement: .*\n", "    statement: " + statement.replace("\\", "\\\\") + "\n")
            .replace("    result: row\n", ""));
  }

  @Test
  void aStatementThatIsNotOneDataStatementIsRefusedAtLoadWithItsLine() throws Exception {
    for (String statement :
        List.of(
            "DROP TABLE orders",
            "ATTACH DATABASE '/tmp/x.db' AS x",
            "PRAGMA writable_schema = 1",
            "COMMIT",
            "END",
            "ROLLBACK",
            "BEGIN",
            "SAVEPOINT s",
            "CREATE TABLE t (id INTEGER)",
            "ALTER TABLE orders ADD COLUMN x TEXT",
            "VACUUM",
            "SET statement_timeout = 0",
            "CALL ends_the_transaction()")) {
      List<String> errors = statementErrors(statement);
      String first = statement.split(" ")[0];
      {
        assertThat(errors)
            .as(statement)
            .containsExactly(
                ":13: tools[0].statement: is a "
                    + first
                    + " statement; a SQL tool runs one data statement (INSERT, UPDATE, DELETE,"
                    + " SELECT, or WITH ... followed by one of them) inside the ledger's"
                    + " transaction, and may not change the schema, the connection or the"
                    + " transaction");
      }
    }
  }

  @Test
  void aStatementOnTheLedgersOwnTablesIsRefusedAtLoad() throws Exception {
    assertThat(statementErrors("UPDATE tl_operations SET state = 'COMPLETED'"))
        .containsExactly(
            ":13: tools[0].statement: names tl_operations: names starting with tl_ belong to the"
                + " ledger's own tables, which a SQL tool may neither read nor write (rename or"
                + " alias your own)");
    assertThat(statementErrors("DELETE FROM main.\"TL_TOKENS\" WHERE tenant = :tenant"))
        .singleElement()
        .asString()
        .contains("names tl_tokens:");
    assertThat(
            statementErrors(
                "INSERT INTO orders (tenant, sku, qty) SELECT tenant, op_key, 1 FROM [tl_outbox]"))
        .singleElement()
        .asString()
        .contains("names tl_outbox:");
    assertThat(statementErrors("SELECT * INTO stolen FROM orders"))
        .singleElement()
        .asString()
        .contains("INTO outside INSERT INTO");
  }

  private Tool withStatement(String statement) throws Exception {
    return load(write(
            "accepted-" + System.nanoTime() + ".yaml",
            ORDER
                .replaceAll("    statement: .*\n", "    statement: " + statement + "\n")
                .replace("    result: row\n", "")))
        .get(0);
  }

  @Test
  void dataStatementsLoadAndASelectAnswersWithItsRow() throws Exception {
    withStatement("INSERT OR IGNORE INTO orders (tenant, sku, qty) VALUES (:tenant, :sku, :qty)");
    withStatement("UPDATE orders SET qty = :qty WHERE tenant = :tenant AND sku = :sku");
    withStatement("DELETE FROM orders WHERE tenant = :tenant AND sku = :sku AND qty = :qty");
    Tool select =
        withStatement(
            "SELECT count(*) AS n FROM orders WHERE tenant = :tenant AND sku = :sku AND qty ="
                + " :qty");
    assertThat(((dev.toolledger.declarative.sql.SqlTool) select).result())
        .isEqualTo(dev.toolledger.declarative.sql.SqlTool.Result.ROW);
  }

  @Test
  void aStatementIsRequired() throws Exception {
    String content = ORDER.replaceAll("    statement: .*\n", "");
    assertThat(errors(content)).containsExactly(":2: tools[0].statement: is required");
  }

  @Test
  void errorsInJsonFilesNameTheirLines() throws Exception {
    String json =
        """
        {
          "tools": [
            {
              "kind": "sql",
              "name": "create-order",
              "version": "1",
              "parameters": {"type": "object"},
              "statement": "INSERT INTO orders (tenant, sku) VALUES (:tenant, :sku)",
              "statment": "typo"
            }
          ]
        }
        """;
    assertThat(errors("tools.json", json))
        .hasSize(2)
        .anySatisfy(error -> assertThat(error).startsWith(":9: tools[0].statment: unknown field"))
        .anySatisfy(
            error -> assertThat(error).startsWith(":8: tools[0].statement: :sku is neither"));
  }

  @Test
  void malformedFilesNameTheLine() throws Exception {
    assertThat(errors("tools:\n  - kind: sql\n    name: [unclosed\n"))
        .containsExactly(
            ":3: while parsing a flow sequence; expected ',' or ']', but got <stream end>");
    assertThat(errors("tools.json", "{\"tools\": [\n{\"kind\": \"sql\", \"kind\": \"sql\"}]}"))
        .singleElement()
        .asString()
        .startsWith(":2: Duplicate field 'kind'");
    assertThat(errors("tools:\n  - kind: sql\n    kind: sql\n"))
        .singleElement()
        .asString()
        .startsWith(":3: Duplicate field 'kind'");
    assertThat(errors("tools: []\n---\ntools: []\n"))
        .singleElement()
        .asString()
        .startsWith(":3: Trailing token");
    assertThatThrownBy(() -> load(write("tools.txt", ORDER)))
        .isInstanceOf(DefinitionException.class)
        .hasMessageEndingWith(
            "tools.txt: a tools file is YAML (.yaml, .yml) or JSON (.json), by its extension");
  }

  @Test
  void anEntryThatIsNotAnObjectIsRefused() throws Exception {
    assertThat(errors("tools:\n  - sql\n"))
        .containsExactly(":2: tools[0]: must be an object with a kind, a name and a version");
  }

  @Test
  void theEnvironmentIsPassedToTheKinds() throws Exception {
    ToolKind probe =
        new ToolKind() {
          @Override
          public String name() {
            return "probe";
          }

          @Override
          public Tool define(Definition definition) throws DefinitionException {
            throw definition.error("/name", "sees " + definition.environment().get("TOKEN"));
          }
        };
    Path file = write("tools.yaml", "tools:\n  - kind: probe\n    name: p\n");
    assertThatThrownBy(() -> ToolsFile.load(file, Map.of("TOKEN", "t0k"), List.of(probe)))
        .hasMessage(file + ":3: tools[0].name: sees t0k");
  }
}
