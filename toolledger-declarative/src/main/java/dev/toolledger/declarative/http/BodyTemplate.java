package dev.toolledger.declarative.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Map;

/**
 * A JSON template of a request body. A string that is exactly {@code "{name}"} becomes the
 * parameter's JSON value with its type (number, boolean, object...); when that parameter is absent,
 * the object field or array element holding it is left out. A placeholder inside a longer string is
 * replaced by the parameter's text (a string's characters, a number's digits). Keys and every other
 * value are copied as written.
 */
record BodyTemplate(JsonNode template) {
  BodyTemplate {
    template = template.deepCopy();
  }

  JsonNode expand(JsonNode parameters) throws TemplateException {
    JsonNode body = expand(template, parameters);
    // A body that is one absent parameter is sent as JSON null rather than as nothing.
    return body == null ? JsonNodeFactory.instance.nullNode() : body;
  }

  /** The expanded node, or null when it is a whole placeholder whose parameter is absent. */
  private static JsonNode expand(JsonNode node, JsonNode parameters) throws TemplateException {
    if (node.isObject()) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        JsonNode value = expand(field.getValue(), parameters);
        if (value != null) {
          out.set(field.getKey(), value);
        }
      }
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      for (JsonNode element : node) {
        JsonNode value = expand(element, parameters);
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
    String whole = Placeholders.whole(text);
    if (whole != null) {
      JsonNode value = parameters.get(whole);
      return value == null || value.isMissingNode() ? null : value.deepCopy();
    }
    StringBuilder out = new StringBuilder();
    for (Placeholders.Part part : Placeholders.split(text)) {
      out.append(
          part.placeholder()
              ? UrlTemplate.scalar(parameters, part.text(), "the body")
              : part.text());
    }
    return TextNode.valueOf(out.toString());
  }
}
