package dev.toolledger.core.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import org.junit.jupiter.api.Test;

class ParameterSchemaTest {
  private static final ParameterSchema NOTE =
      ParameterSchema.compile(
          Json.parse(
              "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"title\"],"
                  + "\"properties\":{\"title\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200},"
                  + "\"body\":{\"type\":\"string\",\"default\":\"\"}}}"));

  @Test
  void absentOptionalFieldGetsItsDefault() {
    JsonNode input = Json.parse("{\"title\":\"a\"}");
    Validation result = NOTE.validate(input);
    assertThat(result).isInstanceOf(Validation.Valid.class);
    assertThat(((Validation.Valid) result).parameters())
        .isEqualTo(Json.parse("{\"title\":\"a\",\"body\":\"\"}"));
    assertThat(input).isEqualTo(Json.parse("{\"title\":\"a\"}"));
  }

  @Test
  void missingRequiredFieldIsNamed() {
    Validation result = NOTE.validate(Json.parse("{\"body\":\"x\"}"));
    assertThat(result).isInstanceOf(Validation.Invalid.class);
    assertThat(((Validation.Invalid) result).violations())
        .extracting(Violation::field)
        .containsExactly("/title");
  }

  @Test
  void tooLongTitleIsNamed() {
    Validation result = NOTE.validate(Json.parse("{\"title\":\"" + "x".repeat(201) + "\"}"));
    assertThat(((Validation.Invalid) result).violations())
        .extracting(Violation::field)
        .containsExactly("/title");
  }

  @Test
  void nullIsNotReplacedByTheDefault() {
    Validation result = NOTE.validate(Json.parse("{\"title\":\"a\",\"body\":null}"));
    assertThat(((Validation.Invalid) result).violations())
        .extracting(Violation::field)
        .containsExactly("/body");
  }

  @Test
  void unknownFieldIsNamed() {
    Validation result = NOTE.validate(Json.parse("{\"title\":\"a\",\"colour\":\"red\"}"));
    assertThat(((Validation.Invalid) result).violations())
        .extracting(Violation::field)
        .containsExactly("/colour");
  }

  @Test
  void nonObjectSchemaIsRefused() {
    assertThatThrownBy(() -> ParameterSchema.compile(Json.parse("[]")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void nulInAnyTextIsInvalidWhateverTheSchemaAllows() {
    ParameterSchema anything = ParameterSchema.compile(Json.parse("{\"type\":\"object\"}"));
    Validation result =
        anything.validate(
            Json.parse(
                "{\"a\":\"x\\u0000\",\"list\":[\"ok\",{\"b/c\":\"\\u0000\"}],"
                    + "\"k\\u0000\":1,\"clean\":\"fine\"}"));

    assertThat(result).isInstanceOf(Validation.Invalid.class);
    assertThat(((Validation.Invalid) result).violations())
        .extracting(Violation::field)
        .containsExactly("", "/a", "/list/1/b~1c");
    assertThat(((Validation.Invalid) result).violations())
        .allSatisfy(v -> assertThat(v.message()).contains("U+0000").doesNotContain("x"));
  }
}
