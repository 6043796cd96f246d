package dev.toolledger.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A LangChain4j {@link ChatModel} that plays a script instead of calling a provider: each turn
 * answers one chat request. Tool calls get a fresh id every time, as a real model's would, so
 * nothing may depend on them.
 */
final class ScriptedChatModel implements ChatModel {
  private final Deque<Function<ChatRequest, AiMessage>> turns;
  final List<ChatRequest> requests = new CopyOnWriteArrayList<>();

  @SafeVarargs
  ScriptedChatModel(Function<ChatRequest, AiMessage>... turns) {
    this.turns = new ArrayDeque<>(Arrays.asList(turns));
  }

  @Override
  public ChatResponse doChat(ChatRequest request) {
    requests.add(request);
    Function<ChatRequest, AiMessage> turn;
    synchronized (turns) {
      turn = turns.poll();
    }
    if (turn == null) {
      throw new AssertionError("the script has no turn left for request " + requests.size());
    }
    return ChatResponse.builder().aiMessage(turn.apply(request)).build();
  }

  /** A turn that calls one tool with these JSON arguments. */
  static Function<ChatRequest, AiMessage> call(String tool, String arguments) {
    return request ->
        AiMessage.from(
            ToolExecutionRequest.builder()
                .id("call_" + UUID.randomUUID())
                .name(tool)
                .arguments(arguments)
                .build());
  }

  /** A final answer that quotes the last tool result the model was given. */
  static Function<ChatRequest, AiMessage> answer(String prefix) {
    return request -> AiMessage.from(prefix + lastToolResult(request.messages()).text());
  }

  static ToolExecutionResultMessage lastToolResult(List<ChatMessage> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i) instanceof ToolExecutionResultMessage result) {
        return result;
      }
    }
    throw new AssertionError("the model was given no tool result");
  }

  /** Every tool result the model was given, in order, as of its last request. */
  List<ToolExecutionResultMessage> toolResultsSeen() {
    return requests.get(requests.size() - 1).messages().stream()
        .filter(ToolExecutionResultMessage.class::isInstance)
        .map(ToolExecutionResultMessage.class::cast)
        .toList();
  }
}
