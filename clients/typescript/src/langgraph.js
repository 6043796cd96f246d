import { tool as lcTool } from '@langchain/core/tools';
import { getConfig } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { ActionConflictError, ToolLedgerError } from './journal.js';
import { conflictText, modelText } from './model-text.js';

/** No durable identity: the graph runs without a checkpointer/thread, or outside a graph task. */
export class NoDurableIdentityError extends ToolLedgerError {}

/**
 * The durable identity of the graph task that is running: the workflow is the thread
 * (`configurable.thread_id`), the step is the task's checkpoint namespace (`node:taskId`, with the
 * parent path in a subgraph), which LangGraph derives from the checkpoint the task runs from. A
 * run resumed from its checkpointer (`invoke(null, {configurable: {thread_id}})`), a node retry
 * and a replay from an earlier checkpoint re-run the task under the same id; the next turn, a new
 * thread, or a fork made with `updateState` run under new ones.
 *
 * @param {object} [config] the config LangGraph passed to the node or tool; `getConfig()` if absent
 * @param {string|number} [suffix] tells apart several actions within one task (`#suffix`)
 * @returns {{workflowId: string, stepId: string}}
 */
export function durableStep(config, suffix) {
  let c = config;
  if (!c) {
    try {
      c = getConfig();
    } catch {
      c = undefined;
    }
  }
  const threadId = c?.configurable?.thread_id;
  const ns = c?.configurable?.checkpoint_ns || c?.metadata?.langgraph_checkpoint_ns;
  if (threadId === undefined || threadId === null || threadId === '') {
    throw new NoDurableIdentityError(
      'no thread_id in the config: compile the graph with a checkpointer and invoke it with' +
        ' {configurable: {thread_id}}, so that a resumed run can find its operation keys',
    );
  }
  if (!ns || !String(ns).includes(':')) {
    throw new NoDurableIdentityError(
      'no task checkpoint namespace in the config: call this from a graph node or a tool that a' +
        ' graph node runs, passing the config LangGraph gave it',
    );
  }
  return {
    workflowId: String(threadId),
    stepId: suffix === undefined ? String(ns) : `${ns}#${suffix}`,
  };
}

/**
 * Where a tool call sits in the task: its position among the tool calls of the AI message the
 * ToolNode is running (kept in the checkpoint, so a resumed task sees the same message), or its id
 * when the state has no such message (a `Send` of one call).
 */
function callPosition(config) {
  const call = config?.toolCall;
  const id = call?.id ?? config?.toolCallId;
  const messages = Array.isArray(config?.state) ? config.state : config?.state?.messages;
  if (id && Array.isArray(messages)) {
    for (let i = messages.length - 1; i >= 0; i--) {
      const calls = messages[i]?.tool_calls;
      if (Array.isArray(calls) && calls.length > 0) {
        const at = calls.findIndex((c) => c.id === id);
        if (at >= 0) return `call-${at}`;
        break;
      }
    }
  }
  if (id) return `call-id-${id}`;
  throw new NoDurableIdentityError('the tool was not invoked with a tool call; use a ToolNode');
}

/**
 * A LangChain tool that sends each call through the ToolLedger client with a key derived from the
 * graph's durable identity ({@link durableStep} plus the call's position in the AI message). The
 * model is told the outcome as a JSON object (`completed` / `refused` / `rejected` / `unknown`);
 * the tool never throws for an outcome, so neither ToolNode's error handling nor a node retry can
 * turn one into a second action.
 *
 * @param {import('./client.js').ToolLedgerClient} client
 * @param {{name: string, description: string, schema: object, tool?: string,
 *   parameters?: (args: object) => object}} spec `tool` is ToolLedger's tool name (default `name`);
 *   `parameters` maps the model's arguments to the tool's (default: as they are)
 */
export function ledgerTool(client, { name, description, schema, tool = name, parameters = (a) => a }) {
  return lcTool(
    async (args, config) => {
      const cfg = config ?? getConfig();
      const { workflowId, stepId } = durableStep(cfg, callPosition(cfg));
      try {
        return modelText(await client.execute(workflowId, stepId, tool, parameters(args)));
      } catch (e) {
        if (e instanceof ActionConflictError) return conflictText(e);
        throw e;
      }
    },
    { name, description, schema },
  );
}

/** A ToolNode of ledger tools: `ledgerToolNode(client, [{name, description, schema}, ...])`. */
export function ledgerToolNode(client, specs, options) {
  return new ToolNode(specs.map((s) => ledgerTool(client, s)), options);
}
