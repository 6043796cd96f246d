package dev.toolledger.declarative.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The arguments of an upstream call, as a JSON template. A string that is exactly {@code "{name}"}
 * becomes the parameter's JSON value with its type; when that parameter is absent, the field or
 * array element holding it is left out. A placeholder inside a longer string is replaced by the
 * parameter's text. {@code {downstreamKey}} is the operation's downstream key (unless a parameter
 * has that name). Everything else is copied as written.
 */
record ArgumentsTemplate(JsonNode template) {
  static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z_][A-Za-z0-9_-]*)\\}");
  static final String DOWNSTREAM_KEY = "downstreamKey";

  ArgumentsTemplate {
    template = template.deepCopy();
  }

  /** Every placeholder name of the template, in order, with the JSON Pointer where it is. */
  List<String[]> placeholders() {
    List<String[]> out = new ArrayList<>();
    collect(template, "", out);
    return out;
  }

  private static void collect(JsonNode node, String pointer, List<String[]> out) {
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        collect(field.getValue(), pointer + "/" + escape(field.getKey()), out);
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        collect(node.get(i), pointer + "/" + i, out);
      }
    } else if (node.isTextual()) {
      Matcher m = PLACEHOLDER.matcher(node.textValue());
      while (m.find()) {
        out.add(
            new String[] {
              m.group(1), pointer, Boolean.toString(m.group().equals(node.textValue()))
            });
      }
    }
  }

  /** The arguments for these parameters and this downstream key: always a JSON object. */
  ObjectNode expand(JsonNode parameters, String downstreamKey) throws ArgumentsException {
    JsonNode out = expand(template, parameters, downstreamKey);
    if (out instanceof ObjectNode object) {
      return object;
    }
    throw new ArgumentsException("the arguments template did not make a JSON object");
  }

  private static JsonNode expand(JsonNode node, JsonNode parameters, String downstreamKey)
      throws ArgumentsException {
    if (node.isObject()) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        JsonNode value = expand(field.getValue(), parameters, downstreamKey);
        if (value != null) {
          out.set(field.getKey(), value);
        }
      }
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      for (JsonNode element : node) {
        JsonNode value = expand(element, parameters, downstreamKey);
        if (value != null) {
          out.add(value);
        }
      }
      return out;
    }
    if (!node.isTextual()) {
      return node.deepCopy();
    }
    String text = node.textValue();
    Matcher whole = PLACEHOLDER.matcher(text);
    if (whole.matches()) {
      return value(parameters, whole.group(1), downstreamKey);
    }
    StringBuilder out = new StringBuilder();
    Matcher m = PLACEHOLDER.matcher(text);
    int at = 0;
    while (m.find()) {
      out.append(text, at, m.start());
      JsonNode value = value(parameters, m.group(1), downstreamKey);
      if (value == null) {
        throw new ArgumentsException("parameter " + m.group(1) + " is needed but absent");
      }
      if (value.isContainerNode()) {
        throw new ArgumentsException(
            "parameter " + m.group(1) + " is not a string, number or boolean");
      }
      out.append(value.asText());
      at = m.end();
    }
    out.append(text.substring(at));
    return TextNode.valueOf(out.toString());
  }

  private static JsonNode value(JsonNode parameters, String name, String downstreamKey) {
    JsonNode value = parameters.get(name);
    if (value != null && !value.isMissingNode()) {
      return value.deepCopy();
    }
    if (name.equals(DOWNSTREAM_KEY)) {
      return TextNode.valueOf(downstreamKey);
    }
    return null;
  }

  static String escape(String name) {
    return name.replace("~", "~0").replace("/", "~1");
  }

  /** The arguments cannot be built from these parameters; nothing was sent. */
  static final class ArgumentsException extends Exception {
    private static final long serialVersionUID = 1L;

    ArgumentsException(String message) {
      super(message);
    }
  }
}
