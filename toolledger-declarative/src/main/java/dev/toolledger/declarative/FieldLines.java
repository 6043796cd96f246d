package dev.toolledger.declarative;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * The line of every field and array element of a document, by JSON Pointer, read by streaming the
 * document once with the same parser that reads it (so YAML and JSON are treated alike).
 */
final class FieldLines {
  private FieldLines() {}

  /** Lines by pointer ({@code ""} for the root, {@code "/tools/0/name"}, ...). */
  static Map<String, Integer> of(JsonFactory factory, byte[] document) throws IOException {
    Map<String, Integer> lines = new HashMap<>();
    Deque<Container> open = new ArrayDeque<>();
    try (JsonParser parser = factory.createParser(document)) {
      for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
        int line = parser.currentTokenLocation().getLineNr();
        if (token == JsonToken.FIELD_NAME) {
          Container object = open.peek();
          object.field = object.pointer + "/" + escape(parser.currentName());
          lines.putIfAbsent(object.field, line);
          continue;
        }
        if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
          open.pop();
          continue;
        }
        String pointer = valuePointer(open);
        lines.putIfAbsent(pointer, line);
        if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
          open.push(new Container(pointer, token == JsonToken.START_ARRAY));
        }
      }
    }
    return lines;
  }

  private static String valuePointer(Deque<Container> open) {
    Container parent = open.peek();
    if (parent == null) {
      return "";
    }
    return parent.array ? parent.pointer + "/" + parent.next++ : parent.field;
  }

  static String escape(String name) {
    return name.replace("~", "~0").replace("/", "~1");
  }

  private static final class Container {
    final String pointer;
    final boolean array;
    int next;
    String field;

    Container(String pointer, boolean array) {
      this.pointer = pointer;
      this.array = array;
    }
  }
}
