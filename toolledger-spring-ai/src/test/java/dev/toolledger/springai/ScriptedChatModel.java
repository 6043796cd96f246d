package dev.toolledger.springai;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * A chat model that plays a script instead of calling a provider: each call takes the next turn,
 * which sees the conversation so far (Spring AI's messages, tool responses included) and answers
 * with an {@link AssistantMessage}, with tool calls or with text. Every prompt it receives is kept,
 * so a test can show what the model was told.
 */
final class ScriptedChatModel implements ChatModel {

  /** One answer of the model. */
  @FunctionalInterface
  interface Turn {
    AssistantMessage answer(List<Message> conversation);
  }

  private final Deque<Turn> script;
  private final List<Prompt> prompts = new ArrayList<>();

  ScriptedChatModel(Turn... turns) {
    this.script = new ArrayDeque<>(List.of(turns));
  }

  /** Asks for one tool call, as a provider's model does. */
  static Turn callTool(String toolCallId, String tool, String argumentsJson) {
    return conversation ->
        AssistantMessage.builder()
            .toolCalls(
                List.of(new AssistantMessage.ToolCall(toolCallId, "function", tool, argumentsJson)))
            .build();
  }

  /** Answers in text, quoting what the last tool said, as a model summarising a result does. */
  static Turn reportToolResult() {
    return conversation ->
        new AssistantMessage("The tool answered: " + lastToolResponse(conversation));
  }

  /** Fails like a provider that is briefly unavailable. */
  static Turn fail(RuntimeException failure) {
    return conversation -> {
      throw failure;
    };
  }

  static String lastToolResponse(List<Message> conversation) {
    for (int i = conversation.size() - 1; i >= 0; i--) {
      if (conversation.get(i) instanceof ToolResponseMessage response) {
        return response.getResponses().get(response.getResponses().size() - 1).responseData();
      }
    }
    throw new AssertionError("the model was not given any tool response");
  }

  @Override
  public synchronized ChatResponse call(Prompt prompt) {
    prompts.add(prompt);
    Turn turn = script.poll();
    if (turn == null) {
      throw new AssertionError(
          "the model was asked " + prompts.size() + " times, more than the script has turns");
    }
    return new ChatResponse(List.of(new Generation(turn.answer(prompt.getInstructions()))));
  }

  synchronized List<Prompt> prompts() {
    return List.copyOf(prompts);
  }

  /** Every tool response the model was given, in order, as the text it received. */
  synchronized List<String> toolResponsesSeen() {
    List<String> seen = new ArrayList<>();
    for (Prompt prompt : prompts) {
      Message last = prompt.getInstructions().get(prompt.getInstructions().size() - 1);
      if (last instanceof ToolResponseMessage response) {
        response.getResponses().forEach(r -> seen.add(r.responseData()));
      }
    }
    return seen;
  }

  synchronized int turnsLeft() {
    return script.size();
  }
}
