package dev.toolledger.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one JSON configuration ToolLedger reads requests with.
 *
 * <p>Duplicate property names are rejected rather than resolved "last one wins": a body such as
 * {@code {"title":"a","title":"b"}} has no single meaning, so it cannot have a single fingerprint.
 * Trailing tokens after the document are rejected for the same reason.
 */
@NotApi
public final class Json {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .disable(JsonParser.Feature.AUTO_CLOSE_SOURCE)
          .build();

  private Json() {}

  /** The shared, thread-safe mapper. Do not reconfigure it. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  public static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  /**
   * A parser's message without what would name the library: a parenthesised note that quotes code
   * ({@code `...`}) is cut, and so is the rest of a message that names a Java class.
   */
  static String withoutLibraryNames(String message) {
    if (message == null) {
      return "unreadable JSON";
    }
    String text = message.replaceAll("\\s*\\([^()]*`[^()]*\\)", "");
    java.util.regex.Matcher named =
        java.util.regex.Pattern.compile("\\b(?:[a-z][a-z0-9_]*\\.){2,}[A-Za-z_$][\\w$]*|`[^`]*`")
            .matcher(text);
    if (named.find()) {
      text = text.substring(0, named.start()).strip();
    }
    return text.isEmpty() ? "unreadable JSON" : text;
  }

  /** Parses a JSON document, throwing {@link MalformedJsonException} with the parser's reason. */
  public static JsonNode parse(byte[] json) {
    try {
      JsonNode node = MAPPER.readTree(json);
      if (node == null || node.isMissingNode()) {
        throw new MalformedJsonException("the body is empty; send a JSON object");
      }
      return node;
    } catch (StreamConstraintsException e) {
      // Jackson's text names its own configuration methods; a caller needs only the limit's kind.
      throw new MalformedJsonException(
          "it exceeds a limit of the parser: nesting deeper than "
              + StreamReadConstraints.DEFAULT_MAX_DEPTH
              + " levels, or a number, a name or a string that is too long");
    } catch (JsonProcessingException e) {
      throw new MalformedJsonException(withoutLibraryNames(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static JsonNode parse(String json) {
    return parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** Serializes a tree compactly. */
  public static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree could not be serialized", e);
    }
  }
}
