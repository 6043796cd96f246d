import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AIMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ActionJournal, ToolLedgerClient } from '../src/index.js';
import { durableStep, ledgerToolNode, NoDurableIdentityError } from '../src/langgraph.js';
import { CREATE_NOTE } from '../examples/agent.js';

test('the step is the thread and the task checkpoint namespace, with an optional suffix', () => {
  const config = { configurable: { thread_id: 'chat-42', checkpoint_ns: 'parent:1|tools:abc' } };
  assert.deepEqual(durableStep(config), { workflowId: 'chat-42', stepId: 'parent:1|tools:abc' });
  assert.deepEqual(durableStep(config, 'call-2'), { workflowId: 'chat-42', stepId: 'parent:1|tools:abc#call-2' });
});

test('no thread or no task namespace is refused instead of inventing a key', () => {
  assert.throws(() => durableStep({ configurable: { checkpoint_ns: 'tools:abc' } }), NoDurableIdentityError);
  assert.throws(() => durableStep({ configurable: { thread_id: 't' } }), NoDurableIdentityError);
  assert.throws(() => durableStep(undefined), NoDurableIdentityError);
});

test('a graph without a checkpointer and thread sends nothing and journals nothing: the model is told why', async () => {
  const journal = ActionJournal.open(join(mkdtempSync(join(tmpdir(), 'tl-lg-')), 'journal.db'));
  let sent = 0;
  const transport = {
    send: async () => (sent++, { retry: 'not reached' }),
    lookup: async () => (sent++, { retry: 'not reached' }),
  };
  const client = new ToolLedgerClient({ journal, transport });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async () => ({
      messages: [new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'create-note', args: { title: 'x' } }] })],
    }))
    .addNode('tools', ledgerToolNode(client, [CREATE_NOTE]))
    .addEdge(START, 'agent')
    .addEdge('agent', 'tools')
    .addEdge('tools', END)
    .compile(); // no checkpointer, no thread: nothing durable to derive a key from
  const state = await graph.invoke({ messages: [] });
  const told = state.messages.at(-1);
  assert.equal(told.getType(), 'tool');
  assert.match(String(told.content), /no thread_id in the config/);
  assert.equal(sent, 0);
  assert.deepEqual(journal.workflowsWithUnfinishedActions(), []);
  journal.close();
});
