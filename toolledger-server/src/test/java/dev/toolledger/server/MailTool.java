package dev.toolledger.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.protocol.Json;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An external tool for tests, "send-mail": its downstream is a little in-JVM mail system that keeps
 * one message per downstream key. A test chooses how the next perform ends.
 */
final class MailTool implements ExternalTool {
  enum Next {
    SEND,
    REFUSE_BEFORE_SENDING,
    SEND_THEN_LOSE_THE_ANSWER
  }

  final Map<String, String> sent = new ConcurrentHashMap<>();
  final AtomicReference<Next> next = new AtomicReference<>(Next.SEND);

  @Override
  public ToolDescriptor descriptor() {
    return ToolDescriptor.builder("send-mail", "1")
        .inputSchema(
            Json.parse(
                "{\"type\":\"object\",\"required\":[\"to\"],\"additionalProperties\":false,"
                    + "\"properties\":{\"to\":{\"type\":\"string\"}}}"))
        .build();
  }

  @Override
  public EffectResult perform(EffectContext context, JsonNode parameters) throws Exception {
    switch (next.get()) {
      case REFUSE_BEFORE_SENDING:
        return EffectResult.notDone("the mail server refused the connection");
      case SEND_THEN_LOSE_THE_ANSWER:
        sent.put(context.downstreamKey(), parameters.get("to").asText());
        throw new java.net.SocketTimeoutException("no answer from the mail server");
      default:
        sent.put(context.downstreamKey(), parameters.get("to").asText());
        return EffectResult.done(
            ToolResponse.of(202, Json.object().put("messageId", context.downstreamKey())));
    }
  }
}
