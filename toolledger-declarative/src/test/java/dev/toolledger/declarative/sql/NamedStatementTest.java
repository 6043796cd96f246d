package dev.toolledger.declarative.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NamedStatementTest {
  @Test
  void namedParametersBecomePlaceholdersInOrder() {
    NamedStatement s =
        NamedStatement.parse("UPDATE t SET a = :a, b = :b WHERE tenant = :tenant AND a <> :a");

    assertThat(s.jdbcSql()).isEqualTo("UPDATE t SET a = ?, b = ? WHERE tenant = ? AND a <> ?");
    assertThat(s.parameters()).containsExactly("a", "b", "tenant", "a");
    assertThat(s.errors()).isEmpty();
    assertThat(s.returning()).isFalse();
  }

  @Test
  void literalsIdentifiersAndCommentsAreNotScanned() {
    String sql =
        "INSERT INTO \"t:x\" (a, `b:c`) VALUES ('it''s :no', E'back\\' :no', :yes) -- :no\n"
            + "/* :no; ? */ RETURNING a";
    NamedStatement s = NamedStatement.parse(sql);

    assertThat(s.parameters()).containsExactly("yes");
    assertThat(s.jdbcSql()).isEqualTo(sql.replace(":yes", "?"));
    assertThat(s.errors()).isEmpty();
    assertThat(s.returning()).isTrue();
  }

  @Test
  void castsAndDollarQuotesAreNotParameters() {
    NamedStatement s =
        NamedStatement.parse("SELECT :v::text, $$ :no ; $$, $tag$ :no $tag$, a$b FROM t");

    assertThat(s.parameters()).containsExactly("v");
    assertThat(s.jdbcSql()).isEqualTo("SELECT ?::text, $$ :no ; $$, $tag$ :no $tag$, a$b FROM t");
    assertThat(s.errors()).isEmpty();
  }

  @Test
  void returningInsideALiteralOrAnIdentifierDoesNotCount() {
    assertThat(NamedStatement.parse("INSERT INTO t (a) VALUES ('RETURNING')").returning())
        .isFalse();
    assertThat(NamedStatement.parse("UPDATE t SET returning_x = 1").returning()).isFalse();
    assertThat(NamedStatement.parse("update t set a = 1 returning *").returning()).isTrue();
  }

  @Test
  void aTrailingSemicolonIsDroppedButASecondStatementIsRefused() {
    NamedStatement one = NamedStatement.parse("DELETE FROM t WHERE id = :id ;  -- done\n");
    assertThat(one.errors()).isEmpty();
    assertThat(one.jdbcSql()).isEqualTo("DELETE FROM t WHERE id = ?");

    NamedStatement two = NamedStatement.parse("DELETE FROM t; DELETE FROM u");
    assertThat(two.errors()).singleElement().asString().startsWith("holds more than one statement");
    assertThat(NamedStatement.parse("SELECT ';' FROM t").errors()).isEmpty();
  }

  @Test
  void unterminatedTextIsRefused() {
    assertThat(NamedStatement.parse("SELECT 'open").errors())
        .containsExactly("a string literal opened at character 8 is not closed");
    assertThat(NamedStatement.parse("SELECT \"open").errors())
        .containsExactly("a quoted identifier opened at character 8 is not closed");
    assertThat(NamedStatement.parse("SELECT 1 /* open").errors())
        .containsExactly("a comment opened at character 10 is not closed");
    assertThat(NamedStatement.parse("SELECT $x$ open").errors())
        .containsExactly("a $-quoted string opened at character 8 is not closed");
  }
}
