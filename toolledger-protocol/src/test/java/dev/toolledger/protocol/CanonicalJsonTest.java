package dev.toolledger.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Random;
import org.erdtman.jcs.JsonCanonicalizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CanonicalJsonTest {

  @Test
  void rfc8785SampleIsCanonicalizedAsTheRfcShows() {
    // The example of RFC 8785 section 3.2.2, with its expected output from section 3.2.3.
    String input =
        "{\"numbers\": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],"
            + " \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\","
            + " \"literals\": [null, true, false]}";
    String expected =
        "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
            + "\"string\":\"\u20ac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";
    assertThat(CanonicalJson.canonicalize(Json.parse(input))).isEqualTo(expected);
  }

  @Test
  void propertiesAreSortedByUtf16CodeUnits() {
    // RFC 8785 section 3.2.3 sorting example: the keys sort as their UTF-16 code units.
    String input =
        "{\"\\u20ac\": \"Euro Sign\", \"\\r\": \"Carriage Return\", \"\\ufb33\": \"Hebrew Letter"
            + " Dalet With Dagesh\", \"1\": \"One\", \"\\ud83d\\ude00\": \"Emoji: Grinning Face\","
            + " \"\\u0080\": \"Control\", \"\\u00f6\": \"Latin Small Letter O With Diaeresis\"}";
    JsonNode node = Json.parse(input);
    assertThat(CanonicalJson.canonicalize(node)).isEqualTo(reference(input));
    assertThat(CanonicalJson.canonicalize(node)).startsWith("{\"\\r\":\"Carriage Return\",\"1\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"1", "1.0", "1e0", "1E+0", "10e-1", "1.000"})
  void numberSpellingsOfOneAreOne(String spelling) {
    assertThat(CanonicalJson.canonicalize(Json.parse("{\"n\":" + spelling + "}")))
        .isEqualTo("{\"n\":1}");
  }

  @Test
  void negativeZeroIsZero() {
    assertThat(CanonicalJson.canonicalize(Json.parse("[-0, -0.0]"))).isEqualTo("[0,0]");
  }

  @Test
  void agreesWithTheReferenceImplementationOnRandomDocuments() {
    Random random = new Random(8785);
    for (int i = 0; i < 2_000; i++) {
      // The reference implementation accepts only an object or an array at the top.
      JsonNode node = JsonNodeFactory.instance.objectNode().set("v", randomValue(random, 0));
      String json = Json.write(node);
      assertThat(CanonicalJson.canonicalize(Json.parse(json)))
          .as("document %s", json)
          .isEqualTo(reference(json));
    }
  }

  @Test
  void loneSurrogateIsRefused() {
    JsonNode node = JsonNodeFactory.instance.textNode("a\ud800b");
    assertThatThrownBy(() -> CanonicalJson.canonicalize(node))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lone surrogate");
  }

  private static String reference(String json) {
    try {
      return new JsonCanonicalizer(json).getEncodedString();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static JsonNode randomValue(Random random, int depth) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    int kind = random.nextInt(depth > 3 ? 5 : 7);
    return switch (kind) {
      case 0 -> f.nullNode();
      case 1 -> f.booleanNode(random.nextBoolean());
      case 2 -> f.numberNode(random.nextInt(2_000_000) - 1_000_000);
      case 3 -> f.numberNode(randomDouble(random));
      case 4 -> f.textNode(randomString(random));
      case 5 -> {
        var array = f.arrayNode();
        for (int i = random.nextInt(5); i > 0; i--) {
          array.add(randomValue(random, depth + 1));
        }
        yield array;
      }
      default -> {
        var object = f.objectNode();
        for (int i = random.nextInt(6); i > 0; i--) {
          object.set(randomString(random), randomValue(random, depth + 1));
        }
        yield object;
      }
    };
  }

  private static double randomDouble(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> random.nextDouble();
      case 1 -> random.nextGaussian() * 1e10;
      case 2 -> Math.pow(10, random.nextInt(60) - 30) * random.nextDouble();
      default -> Double.longBitsToDouble(random.nextLong() & 0x7FEFFFFFFFFFFFFFL);
    };
  }

  private static String randomString(Random random) {
    String alphabet = "abcXYZ019 \"\\/\n\t\u0001\u001f\u007f\u00e9\u20ac\ud83d\ude00\u2028";
    StringBuilder sb = new StringBuilder();
    for (int i = random.nextInt(8); i > 0; i--) {
      int at = random.nextInt(alphabet.length());
      char c = alphabet.charAt(at);
      if (Character.isHighSurrogate(c)) {
        sb.append(c).append(alphabet.charAt(at + 1));
      } else if (!Character.isLowSurrogate(c)) {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
