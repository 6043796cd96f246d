import { randomUUID } from 'node:crypto';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ActionJournal, RetryPolicy, ToolLedgerClient } from '../src/index.js';
import { ledgerToolNode } from '../src/langgraph.js';

/**
 * A scripted chat model, never the network: for a human message "create note: T" (or "create
 * twice: T") it asks for create-note with a fresh tool-call id, as a real model mints new ids;
 * once tool results are in, it answers with them, so a test can read what the model was told.
 */
export class ScriptedChatModel extends BaseChatModel {
  _llmType() {
    return 'scripted';
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    const last = messages[messages.length - 1];
    let message;
    if (last.getType() === 'tool') {
      const results = [];
      for (let i = messages.length - 1; i >= 0 && messages[i].getType() === 'tool'; i--) {
        results.unshift(messages[i].content);
      }
      message = new AIMessage({ content: `Tool results: ${JSON.stringify(results)}` });
    } else {
      const text = String(last.content);
      const [verb, title] = text.split(': ');
      const calls = verb === 'create twice' ? 2 : 1;
      message = new AIMessage({
        content: '',
        tool_calls: Array.from({ length: calls }, () => ({
          id: `call_${randomUUID()}`,
          name: 'create-note',
          args: { title },
        })),
      });
    }
    return { generations: [{ message, text: '' }] };
  }
}

export const CREATE_NOTE = {
  name: 'create-note',
  description: 'Creates a note with a title.',
  schema: {
    type: 'object',
    properties: { title: { type: 'string', description: "the note's title" } },
    required: ['title'],
  },
};

/** Small backoff so lost answers are retried at once; the defaults otherwise. */
export const fastRetries = () => new RetryPolicy({ backoffBaseMs: 5, backoffMaxMs: 50, deadlineMs: 20_000 });

/**
 * The agent: a model node and a ToolNode of ledger tools, checkpointed by `checkpointer`.
 * `parameters` maps the model's arguments to the tool's (a changed mapping is a changed action).
 */
export function buildAgent({ baseUrl, token, journalPath, checkpointer, parameters }) {
  const journal = ActionJournal.open(journalPath);
  const client = new ToolLedgerClient({ journal, baseUrl, token, retryPolicy: fastRetries() });
  const model = new ScriptedChatModel({});
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode('tools', ledgerToolNode(client, [{ ...CREATE_NOTE, parameters }]))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (s) => (s.messages.at(-1).tool_calls?.length ? 'tools' : END))
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
  return { graph, journal, client };
}

export const ask = (text) => ({ messages: [new HumanMessage(text)] });

/** What the model was told: the parsed contents of the run's tool messages, in order. */
export function toolResults(state) {
  return state.messages.filter((m) => m.getType() === 'tool').map((m) => JSON.parse(m.content));
}
