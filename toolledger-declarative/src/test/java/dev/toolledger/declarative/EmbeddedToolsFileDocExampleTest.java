package dev.toolledger.declarative;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.Tool;
import dev.toolledger.declarative.sql.SqlTool;
import dev.toolledger.embed.CallResult;
import dev.toolledger.embed.ToolLedger;
import dev.toolledger.testkit.DocSnippet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

/**
 * docs/declarative-sql-tools.md's "From Java" example, as written between the markers: the page
 * shows exactly these lines, and they serve a tools file's SQL tool from an embedded ledger in the
 * application's own database.
 */
class EmbeddedToolsFileDocExampleTest {
  private static final String TOOLS =
      """
      tools:
        - kind: sql
          name: create-order
          version: "1"
          parameters: {type: object, properties: {sku: {type: string}}}
          statement: INSERT INTO orders (tenant, sku) VALUES (:tenant, :sku) RETURNING id
      """;

  @TempDir Path dir;

  private DataSource dataSource;
  private Path toolsFile;
  private final JsonNode params = new ObjectMapper().createObjectNode().put("sku", "BOOK-1");

  @BeforeEach
  void applicationDatabase() throws Exception {
    SQLiteDataSource sqlite = new SQLiteDataSource();
    sqlite.setUrl("jdbc:sqlite:" + dir.resolve("app.db"));
    try (Connection c = sqlite.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE orders (id INTEGER PRIMARY KEY AUTOINCREMENT, tenant TEXT, sku TEXT)");
    }
    dataSource = sqlite;
    toolsFile = dir.resolve("tools.yaml");
    Files.writeString(toolsFile, TOOLS);
  }

  private void fromJava() throws Exception {
    // docs/declarative-sql-tools.md:start
    List<Tool> tools = ToolsFile.load(toolsFile); // built-in kinds, System.getenv()
    try (Connection connection = dataSource.getConnection()) {
      SqlTool.checkPreparable(tools, connection); // DefinitionException otherwise
    }
    ToolLedger.Builder builder = ToolLedger.builder(dataSource); // beside your tables
    tools.forEach(builder::tool);
    try (ToolLedger ledger = builder.build()) {
      CallResult result = ledger.call(TenantId.of("acme"), "order-7", "create-order", params);
    }
    // docs/declarative-sql-tools.md:end
  }

  @Test
  void thePageShowsTheExampleAsWritten() throws Exception {
    assertThat(DocSnippet.inPage(Path.of("..", "docs", "declarative-sql-tools.md"), "## From Java"))
        .isEqualTo(
            DocSnippet.inSource(
                Path.of(
                    "src/test/java/dev/toolledger/declarative/EmbeddedToolsFileDocExampleTest.java"),
                "docs/declarative-sql-tools.md"));
  }

  @Test
  void theExampleWritesOneRowInTheApplicationsTableAndARetryWritesNone() throws Exception {
    fromJava();
    fromJava();

    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT tenant, sku FROM orders")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString("tenant")).isEqualTo("acme");
      assertThat(rs.getString("sku")).isEqualTo("BOOK-1");
      assertThat(rs.next()).isFalse();
    }
  }

  @Test
  void theExampleStopsBeforeServingAStatementOnAMissingTable() throws Exception {
    Files.writeString(toolsFile, TOOLS.replace("INTO orders", "INTO orderz"));

    assertThatThrownBy(this::fromJava)
        .isInstanceOf(DefinitionException.class)
        .hasMessageContaining("orderz");
  }
}
