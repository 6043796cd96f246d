package dev.toolledger.declarative.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.Tool;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.declarative.DefinitionException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A tool defined by one parameterized SQL statement ({@code kind: sql} in a tools file), run on the
 * ledger's connection inside the ledger's transaction: the statement's effect and the operation's
 * record commit together or not at all, and a retry with the same key replays the recorded response
 * without running the statement again.
 *
 * <p>Parameters are written {@code :name} and bound by the driver from the validated parameters,
 * never spliced into the text. Two names are reserved: {@code :tenant} is the authenticated tenant
 * (a string) and {@code :now} the engine clock's time of the attempt in epoch milliseconds (an
 * integer); the parameter schema may not declare either.
 *
 * <p>The response is either the one row the statement returns ({@link Result#ROW}: its {@code
 * RETURNING} row as a JSON object, default status 201) or its update count ({@link Result#COUNT}:
 * {@code {"count": n}}, default status 200). A {@code ROW} statement that returns no row changed
 * nothing, so that is recorded as a definitive business error: 409 with type {@value #NO_ROW}. A
 * statement that fails (a constraint, a missing table) or returns more than one row rolls back the
 * whole transaction and records nothing: the caller may retry with the same key.
 *
 * <p>What it cannot do: more than one statement, or any logic between statements (conditions,
 * loops, reading before writing in Java, calling another system). Write a Java {@link
 * TransactionalTool} for that.
 */
public final class SqlTool implements TransactionalTool {
  /** The problem type of a {@code result: row} statement that returned no row. */
  public static final String NO_ROW = "https://toolledger.dev/problems/sql/no-row";

  /** What the response is made of. */
  public enum Result {
    /** The one row the statement returns, as a JSON object. */
    ROW,
    /** The statement's update count, as {@code {"count": n}}. */
    COUNT
  }

  private final ToolDescriptor descriptor;
  private final String statement;
  private final NamedStatement parsed;
  private final Result result;
  private final int status;
  private final String where;

  SqlTool(
      ToolDescriptor descriptor,
      String statement,
      NamedStatement parsed,
      Result result,
      int status,
      String where) {
    this.descriptor = Objects.requireNonNull(descriptor, "descriptor");
    this.statement = Objects.requireNonNull(statement, "statement");
    this.parsed = Objects.requireNonNull(parsed, "parsed");
    this.result = Objects.requireNonNull(result, "result");
    this.status = status;
    this.where = Objects.requireNonNull(where, "where");
  }

  @Override
  public ToolDescriptor descriptor() {
    return descriptor;
  }

  /** The statement as written in the tools file. */
  public String statement() {
    return statement;
  }

  public Result result() {
    return result;
  }

  /** The status of a successful response. */
  public int status() {
    return status;
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
    try (PreparedStatement ps = context.connection().prepareStatement(parsed.jdbcSql())) {
      List<String> names = parsed.parameters();
      for (int i = 0; i < names.size(); i++) {
        String name = names.get(i);
        int index = i + 1;
        switch (name) {
          case SqlToolKind.TENANT -> ps.setString(index, context.tenant().value());
          case SqlToolKind.NOW -> ps.setLong(index, context.now().toEpochMilli());
          default -> JdbcJson.bind(ps, index, parameters.get(name), context.dialect());
        }
      }
      return result == Result.ROW ? row(ps) : count(ps);
    }
  }

  private ToolResponse row(PreparedStatement ps) throws SQLException {
    try (ResultSet rows = ps.executeQuery()) {
      if (!rows.next()) {
        ObjectNode problem = JsonNodeFactory.instance.objectNode();
        problem.put("type", NO_ROW);
        problem.put("title", "No row");
        problem.put("status", 409);
        problem.put(
            "detail", "the statement of tool " + name() + " returned no row; nothing was changed");
        return ToolResponse.of(409, problem);
      }
      ObjectNode row = JdbcJson.row(rows);
      if (rows.next()) {
        // Throwing rolls the statement back: several rows changed where one was declared.
        throw new SQLException(
            "the statement of tool "
                + name()
                + " returned more than one row (result: row expects one); it was rolled back");
      }
      return ToolResponse.of(status, row);
    }
  }

  private ToolResponse count(PreparedStatement ps) throws SQLException {
    int count = ps.executeUpdate();
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("count", count);
    return ToolResponse.of(status, body);
  }

  /**
   * Prepares the statement of every SQL tool among {@code tools} on {@code connection} (a
   * connection to the ledger's database, in auto-commit mode), without executing any, so that a
   * statement the database cannot run (a missing table or column, a syntax error, a type it cannot
   * infer) stops the server at start rather than failing every call. On PostgreSQL the statement is
   * parsed and described by the server; on SQLite it is compiled.
   *
   * <p>It cannot see what only execution shows: constraint violations, a result of more or fewer
   * rows than declared, a parameter of the wrong type for its column.
   *
   * @throws DefinitionException naming, for every statement that cannot be prepared, the tools
   *     file, the line, the tool and the database's message
   */
  public static void checkPreparable(List<Tool> tools, Connection connection)
      throws DefinitionException {
    List<DefinitionException> errors = new ArrayList<>();
    for (Tool tool : tools) {
      if (tool instanceof SqlTool sql) {
        try (PreparedStatement ps = connection.prepareStatement(sql.parsed.jdbcSql())) {
          // PgJDBC prepares lazily; describing the parameters makes the server parse it now.
          ps.getParameterMetaData();
        } catch (SQLException e) {
          errors.add(
              new DefinitionException(
                  sql.where
                      + ": tool "
                      + sql.name()
                      + ": the database cannot prepare the statement: "
                      + e.getMessage()
                      + (e.getSQLState() == null ? "" : " (SQLState " + e.getSQLState() + ")")));
        }
      }
    }
    DefinitionException.throwIfAny(errors);
  }

  @Override
  public String toString() {
    return "SqlTool[" + name() + "]";
  }
}
