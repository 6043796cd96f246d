package dev.toolledger.examples.springai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * A stand-in for a real model, so that the example runs without an API key: asked by the user, it
 * calls {@code create-note} (as many times as the user asked for notes, each after the previous one
 * is completed); told the tool's answer, it answers the user from it. Each tool call gets a new id,
 * as a real model's would. It prints what it is told and what it says.
 *
 * <p>To use a real model instead, pass any Spring AI {@link ChatModel} (OpenAI, Anthropic, Ollama)
 * to {@link SpringAiAgentExample#agent}; see docs/agents-spring-ai.md.
 */
final class ScriptedModel implements ChatModel {
  private final String toolCallPrefix;
  private final String noteArguments;
  private final int notes;
  private final PrintStream out;
  private final AtomicInteger calls = new AtomicInteger();

  ScriptedModel(String toolCallPrefix, String noteArguments, PrintStream out) {
    this(toolCallPrefix, noteArguments, 1, out);
  }

  /** A model that asks for {@code notes} notes with the same arguments, one after the other. */
  ScriptedModel(String toolCallPrefix, String noteArguments, int notes, PrintStream out) {
    this.toolCallPrefix = toolCallPrefix;
    this.noteArguments = noteArguments;
    this.notes = notes;
    this.out = out;
  }

  @Override
  public ChatResponse call(Prompt prompt) {
    List<Message> conversation = prompt.getInstructions();
    Message last = conversation.get(conversation.size() - 1);
    JsonNode told = null;
    if (last instanceof ToolResponseMessage response) {
      String text = response.getResponses().get(0).responseData();
      out.println("  model is told:   " + text);
      told = Json.parse(text);
    }
    AssistantMessage answer;
    if (told == null
        || ("completed".equals(told.path("outcome").asText())
            && toolResponsesThisTurn(conversation) < notes)) {
      String id = toolCallPrefix + calls.incrementAndGet();
      out.println("  model asks:      create-note " + noteArguments + " (tool call " + id + ")");
      answer =
          AssistantMessage.builder()
              .toolCalls(
                  List.of(
                      new AssistantMessage.ToolCall(id, "function", "create-note", noteArguments)))
              .build();
    } else {
      answer = new AssistantMessage(reply(told));
      out.println("  model answers:   " + answer.getText());
    }
    return new ChatResponse(List.of(new Generation(answer)));
  }

  private static int toolResponsesThisTurn(List<Message> conversation) {
    int responses = 0;
    for (int i = conversation.size() - 1;
        i >= 0 && !(conversation.get(i) instanceof UserMessage);
        i--) {
      if (conversation.get(i) instanceof ToolResponseMessage) {
        responses++;
      }
    }
    return responses;
  }

  /** What a careful model makes of each outcome. */
  private static String reply(JsonNode told) {
    return switch (told.path("outcome").asText()) {
      case "completed" -> {
        JsonNode note = told.path("result");
        yield "Note #"
            + note.path("id").asLong()
            + " \""
            + note.path("title").asText()
            + "\" is saved"
            + (told.path("replayed").asBoolean()
                ? " (the recorded result: it was not saved twice)."
                : ".");
      }
      case "unknown" ->
          "I could not confirm that the note was saved. I will not try again until it has"
              + " been checked.";
      default -> "The note was not saved: " + told.path("problem").path("detail").asText();
    };
  }
}
