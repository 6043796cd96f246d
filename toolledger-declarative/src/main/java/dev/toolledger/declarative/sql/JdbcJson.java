package dev.toolledger.declarative.sql;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.SqlDialect;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.util.Base64;
import java.util.Locale;

/** Between JSON values and JDBC: binding parameters, reading a returned row. */
final class JdbcJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private JdbcJson() {}

  /**
   * Binds one JSON value: strings, integers, numbers, booleans and null as themselves; objects and
   * arrays as their JSON text (on PostgreSQL as an untyped value, so that it fits a json or jsonb
   * column as well as a text one).
   */
  static void bind(PreparedStatement statement, int index, JsonNode value, SqlDialect dialect)
      throws SQLException {
    if (value == null || value.isNull() || value.isMissingNode()) {
      statement.setNull(index, Types.NULL);
    } else if (value.isBoolean()) {
      statement.setBoolean(index, value.booleanValue());
    } else if (value.isIntegralNumber()) {
      if (value.canConvertToLong()) {
        statement.setLong(index, value.longValue());
      } else {
        statement.setBigDecimal(index, new BigDecimal(value.bigIntegerValue()));
      }
    } else if (value.isBigDecimal() && dialect == SqlDialect.POSTGRESQL) {
      statement.setBigDecimal(index, value.decimalValue());
    } else if (value.isNumber()) {
      statement.setDouble(index, value.doubleValue());
    } else if (value.isTextual()) {
      statement.setString(index, value.textValue());
    } else if (value.isContainerNode() && dialect == SqlDialect.POSTGRESQL) {
      statement.setObject(index, value.toString(), Types.OTHER);
    } else if (value.isContainerNode()) {
      statement.setString(index, value.toString());
    } else {
      statement.setString(index, value.asText());
    }
  }

  /**
   * The current row as a JSON object keyed by column label, as the database reports it.
   *
   * @throws SQLException when two columns have the same label
   */
  static ObjectNode row(ResultSet rows) throws SQLException {
    ResultSetMetaData columns = rows.getMetaData();
    ObjectNode row = NODES.objectNode();
    for (int i = 1; i <= columns.getColumnCount(); i++) {
      String label = columns.getColumnLabel(i);
      if (row.has(label)) {
        throw new SQLException(
            "the statement returns two columns labelled '"
                + label
                + "'; give them distinct names with AS");
      }
      row.set(label, value(rows, i, columns));
    }
    return row;
  }

  private static JsonNode value(ResultSet rows, int i, ResultSetMetaData columns)
      throws SQLException {
    String type = String.valueOf(columns.getColumnTypeName(i)).toLowerCase(Locale.ROOT);
    switch (type) {
      case "json", "jsonb" -> {
        String text = rows.getString(i);
        if (text == null) {
          return NODES.nullNode();
        }
        try {
          return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
          return NODES.textNode(text);
        }
      }
      case "timestamptz" -> {
        return text(rows.getObject(i, OffsetDateTime.class));
      }
      case "timestamp" -> {
        return text(rows.getObject(i, LocalDateTime.class));
      }
      case "date" -> {
        return text(rows.getObject(i, LocalDate.class));
      }
      case "time" -> {
        return text(rows.getObject(i, LocalTime.class));
      }
      case "timetz" -> {
        return text(rows.getObject(i, OffsetTime.class));
      }
      default -> {
        return json(rows.getObject(i));
      }
    }
  }

  private static JsonNode text(Object value) {
    return value == null ? NODES.nullNode() : NODES.textNode(value.toString());
  }

  private static JsonNode json(Object value) throws SQLException {
    if (value == null) {
      return NODES.nullNode();
    }
    if (value instanceof Boolean b) {
      return NODES.booleanNode(b);
    }
    if (value instanceof Integer || value instanceof Long || value instanceof Short) {
      return NODES.numberNode(((Number) value).longValue());
    }
    if (value instanceof Byte b) {
      return NODES.numberNode(b.longValue());
    }
    if (value instanceof BigInteger big) {
      return NODES.numberNode(big);
    }
    if (value instanceof BigDecimal decimal) {
      // Plain digits: 1E+3 would be a valid JSON number but a surprising one.
      return DecimalNode.valueOf(new BigDecimal(decimal.toPlainString()));
    }
    if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      return Double.isFinite(d) ? NODES.numberNode(d) : NODES.textNode(String.valueOf(d));
    }
    if (value instanceof byte[] bytes) {
      return NODES.textNode(Base64.getEncoder().encodeToString(bytes));
    }
    if (value instanceof java.sql.Timestamp timestamp) {
      return NODES.textNode(timestamp.toInstant().toString());
    }
    if (value instanceof java.sql.Date date) {
      return NODES.textNode(date.toLocalDate().toString());
    }
    if (value instanceof Array array) {
      ArrayNode items = NODES.arrayNode();
      for (Object item : (Object[]) array.getArray()) {
        items.add(json(item));
      }
      return items;
    }
    return NODES.textNode(value.toString());
  }
}
