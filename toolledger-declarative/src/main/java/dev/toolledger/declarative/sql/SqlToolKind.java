package dev.toolledger.declarative.sql;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.declarative.Definition;
import dev.toolledger.declarative.DefinitionException;
import dev.toolledger.declarative.ToolKind;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code kind: sql}: a {@link SqlTool} from a tools-file entry. Besides the {@linkplain
 * Definition#COMMON_FIELDS common fields}:
 *
 * <ul>
 *   <li>{@code statement} (required): one SQL statement with {@code :name} parameters, each {@code
 *       tenant}, {@code now} or a property of {@code parameters};
 *   <li>{@code result}: {@code row} (the statement's one {@code RETURNING} row) or {@code count}
 *       (its update count). Default: {@code row} when the statement has a {@code RETURNING} clause,
 *       else {@code count};
 *   <li>{@code status}: the status of a success, 200 to 299. Default 201 for {@code row}, 200 for
 *       {@code count}.
 * </ul>
 *
 * <p>Everything that can be checked without a database is checked here, every error at once;
 * whether the database can prepare the statement is checked at start by {@link
 * SqlTool#checkPreparable}.
 */
public final class SqlToolKind implements ToolKind {
  /** The reserved parameter bound to the authenticated tenant. */
  public static final String TENANT = "tenant";

  /** The reserved parameter bound to the engine clock's time, in epoch milliseconds. */
  public static final String NOW = "now";

  public static final int DEFAULT_ROW_STATUS = 201;
  public static final int DEFAULT_COUNT_STATUS = 200;

  private static final Set<String> FIELDS = Set.of("statement", "result", "status");
  private static final Set<String> RESERVED = Set.of(TENANT, NOW);

  @Override
  public String name() {
    return "sql";
  }

  @Override
  public SqlTool define(Definition definition) throws DefinitionException {
    List<DefinitionException> errors = new ArrayList<>();
    try {
      definition.refuseUnknownFields(FIELDS);
    } catch (DefinitionException e) {
      errors.add(e);
    }
    ToolDescriptor descriptor = null;
    try {
      descriptor = definition.descriptor();
    } catch (DefinitionException e) {
      errors.add(e);
    }
    Set<String> declared = declaredParameters(definition, errors);

    String statement = null;
    NamedStatement parsed = null;
    try {
      statement = definition.requiredText("/statement");
      parsed = NamedStatement.parse(statement);
      for (String error : parsed.errors()) {
        errors.add(definition.error("/statement", error));
      }
      for (String error : dataStatementErrors(parsed)) {
        errors.add(definition.error("/statement", error));
      }
      for (String name : new LinkedHashSet<>(parsed.parameters())) {
        if (!RESERVED.contains(name) && !declared.contains(name)) {
          errors.add(
              definition.error(
                  "/statement",
                  ":"
                      + name
                      + " is neither a property of parameters nor :tenant or :now; declare it"
                      + " under parameters.properties"));
        }
      }
    } catch (DefinitionException e) {
      errors.add(e);
    }

    SqlTool.Result result = null;
    try {
      result = result(definition, parsed);
    } catch (DefinitionException e) {
      errors.add(e);
    }
    int status = 0;
    try {
      status = status(definition, result);
    } catch (DefinitionException e) {
      errors.add(e);
    }
    DefinitionException.throwIfAny(errors);
    String where =
        definition.file()
            + ":"
            + definition.line("/statement")
            + ": tools["
            + definition.index()
            + "].statement";
    return new SqlTool(descriptor, statement, parsed, result, status, where);
  }

  /** The statements a SQL tool may run: one data statement, or a WITH (CTE) of data statements. */
  static final Set<String> DATA_STATEMENTS = Set.of("INSERT", "UPDATE", "DELETE", "SELECT", "WITH");

  /** The prefix of the ledger's own tables, which no SQL tool may name. */
  static final String LEDGER_TABLES = "tl_";

  /**
   * Why the statement is not one data statement on the user's tables: a statement of another kind
   * (DDL, {@code ATTACH}, {@code PRAGMA}, {@code COMMIT}, {@code BEGIN}, {@code SET}, {@code CALL},
   * ...), a {@code SELECT ... INTO} (which makes a table on PostgreSQL), or a name of the ledger's
   * own tables.
   */
  static List<String> dataStatementErrors(NamedStatement parsed) {
    List<String> errors = new ArrayList<>();
    String first = parsed.firstWord();
    if (first.isEmpty()) {
      errors.add("is empty; write one INSERT, UPDATE, DELETE or SELECT statement");
      return errors;
    }
    if (!DATA_STATEMENTS.contains(first)) {
      errors.add(
          "is a "
              + first
              + " statement; a SQL tool runs one data statement (INSERT, UPDATE, DELETE, SELECT,"
              + " or WITH ... followed by one of them) inside the ledger's transaction, and may"
              + " not change the schema, the connection or the transaction");
    }
    List<String> words = parsed.words();
    for (int w = 0; w < words.size(); w++) {
      if (words.get(w).equals("INTO") && !insertBefore(words, w)) {
        errors.add(
            "has INTO outside INSERT INTO (SELECT ... INTO makes a table); a SQL tool may not"
                + " create tables");
        break;
      }
    }
    Set<String> ledgerTables = new java.util.TreeSet<>();
    for (String name : parsed.identifiers()) {
      if (name.startsWith(LEDGER_TABLES)) {
        ledgerTables.add(name);
      }
    }
    if (!ledgerTables.isEmpty()) {
      errors.add(
          "names "
              + String.join(", ", ledgerTables)
              + ": names starting with tl_ belong to the ledger's own tables, which a SQL tool may"
              + " neither read nor write (rename or alias your own)");
    }
    return errors;
  }

  /** INSERT INTO, INSERT OR REPLACE INTO, INSERT OR IGNORE INTO. */
  private static boolean insertBefore(List<String> words, int into) {
    for (int w = Math.max(0, into - 3); w < into; w++) {
      if (words.get(w).equals("INSERT")) {
        return true;
      }
    }
    return false;
  }

  /** The properties of the parameter schema; the reserved names are refused. */
  private static Set<String> declaredParameters(
      Definition definition, List<DefinitionException> errors) {
    Set<String> names = new LinkedHashSet<>();
    Optional<JsonNode> properties = definition.field("/parameters/properties");
    if (properties.isEmpty() || !properties.get().isObject()) {
      return names;
    }
    properties.get().fieldNames().forEachRemaining(names::add);
    for (String reserved : RESERVED) {
      if (names.contains(reserved)) {
        errors.add(
            definition.error(
                "/parameters/properties/" + reserved,
                "'"
                    + reserved
                    + "' is reserved: :"
                    + reserved
                    + (reserved.equals(TENANT)
                        ? " is always the authenticated tenant"
                        : " is always the engine's time in epoch milliseconds")
                    + "; name this parameter otherwise"));
      }
    }
    return names;
  }

  private static SqlTool.Result result(Definition definition, NamedStatement parsed)
      throws DefinitionException {
    Optional<String> written = definition.optionalText("/result");
    // A SELECT (or a WITH of reads) answers with its one row, as a RETURNING clause does.
    boolean returning = parsed != null && (parsed.returning() || parsed.reads());
    if (written.isEmpty()) {
      return returning ? SqlTool.Result.ROW : SqlTool.Result.COUNT;
    }
    switch (written.get()) {
      case "row" -> {
        if (parsed != null && !returning) {
          throw definition.error(
              "/result", "row needs a RETURNING clause in the statement (or write result: count)");
        }
        return SqlTool.Result.ROW;
      }
      case "count" -> {
        if (returning) {
          throw definition.error(
              "/result",
              parsed.returning()
                  ? "count cannot be used with a RETURNING clause; write result: row"
                  : "count cannot be used with a statement that reads rows (SELECT); write"
                      + " result: row");
        }
        return SqlTool.Result.COUNT;
      }
      default ->
          throw definition.error(
              "/result", "unknown result '" + written.get() + "'; one of: row, count");
    }
  }

  private static int status(Definition definition, SqlTool.Result result)
      throws DefinitionException {
    Optional<JsonNode> written = definition.field("/status");
    if (written.isEmpty()) {
      return result == SqlTool.Result.COUNT ? DEFAULT_COUNT_STATUS : DEFAULT_ROW_STATUS;
    }
    JsonNode status = written.get();
    if (!status.canConvertToInt()
        || !status.isIntegralNumber()
        || status.intValue() < 200
        || status.intValue() > 299) {
      throw definition.error("/status", "must be a success status, 200 to 299");
    }
    return status.intValue();
  }
}
