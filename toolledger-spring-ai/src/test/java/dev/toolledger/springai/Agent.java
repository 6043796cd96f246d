package dev.toolledger.springai;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.ToolCallAdvisor;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.execution.ToolExecutionException;

/**
 * A Spring AI agent as an application builds one: a {@link ChatClient} whose tool-calling loop is
 * Spring AI's {@link ToolCallAdvisor} over Spring AI's {@link ToolCallingManager}. The manager's
 * {@code ToolExecutionExceptionProcessor} counts the exceptions it is given and rethrows them, so a
 * test can show that ToolLedger's callbacks never hand it an outcome to paraphrase.
 */
final class Agent {
  private final ChatClient chat;
  private final List<ToolCallback> tools;
  private final AtomicInteger processedExceptions = new AtomicInteger();

  Agent(ChatModel model, List<ToolCallback> tools) {
    this.tools = List.copyOf(tools);
    ToolCallingManager manager =
        ToolCallingManager.builder()
            .toolExecutionExceptionProcessor(
                (ToolExecutionException e) -> {
                  processedExceptions.incrementAndGet();
                  throw e;
                })
            .build();
    this.chat =
        ChatClient.builder(model)
            .defaultAdvisors(ToolCallAdvisor.builder().toolCallingManager(manager).build())
            .build();
  }

  /**
   * One turn of the agent's run {@code workflowId}: the user asks, the loop runs, text comes back.
   */
  String ask(String workflowId, String userText) {
    return ask(ToolLedgerTools.toolContext(workflowId), userText);
  }

  /** A turn with the host's own tool context (which must hold the workflow id). */
  String ask(Map<String, Object> toolContext, String userText) {
    return chat.prompt()
        .user(userText)
        .toolCallbacks(tools)
        .toolContext(toolContext)
        .call()
        .content();
  }

  int exceptionsGivenToTheProcessor() {
    return processedExceptions.get();
  }
}
