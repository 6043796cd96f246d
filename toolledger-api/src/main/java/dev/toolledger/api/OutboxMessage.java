package dev.toolledger.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An event a tool enqueues in the same transaction as its effect, to be delivered after commit.
 *
 * @param topic what kind of event, for example {@code note.attachment}
 * @param aggregate the entity it is about, for example {@code note:42}
 * @param destination the HTTP endpoint that receives it
 * @param payload the JSON body to deliver
 */
public record OutboxMessage(String topic, String aggregate, URI destination, JsonNode payload) {
  private static final Pattern NAME = Pattern.compile("[\\x21-\\x7E]{1,200}");

  public OutboxMessage {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(aggregate, "aggregate");
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(payload, "payload");
    if (!NAME.matcher(topic).matches() || !NAME.matcher(aggregate).matches()) {
      throw new IllegalArgumentException(
          "topic and aggregate are 1 to 200 visible ASCII characters");
    }
    if (!"http".equals(destination.getScheme()) && !"https".equals(destination.getScheme())) {
      throw new IllegalArgumentException("an outbox destination must be an http or https URI");
    }
  }
}
