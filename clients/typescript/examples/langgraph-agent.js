// A LangGraph.js agent whose create-note calls go through ToolLedger with keys from the graph's
// durable identity. The model is scripted (no network, no API key); the graph is checkpointed to
// SQLite, and so is the key journal. Run it twice with the same --thread after killing it in
// between: the resumed run sends the same key and the node replays instead of creating again.
//
//   node examples/langgraph-agent.js "create note: Groceries"
//
// Without TOOLLEDGER_URL and TOOLLEDGER_TOKEN it starts a throwaway node with ./toolledger.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { ask, buildAgent, toolResults } from './agent.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

async function node() {
  if (process.env.TOOLLEDGER_URL && process.env.TOOLLEDGER_TOKEN) {
    return { url: process.env.TOOLLEDGER_URL, token: process.env.TOOLLEDGER_TOKEN, stop: () => {} };
  }
  const db = join(mkdtempSync(join(tmpdir(), 'toolledger-')), 'ledger.db');
  const script = join(repo, 'toolledger');
  const token = execFileSync(script, ['tokens', 'create', '--tenant', 'example', '--db', db], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  const serve = spawn(script, ['serve', '--port', '0', '--db', db], { stdio: ['ignore', 'pipe', 'ignore'] });
  const [first] = await createInterface({ input: serve.stdout })[Symbol.asyncIterator]().next().then((r) => [r.value]);
  const url = /serving (http:\/\/\S+)/.exec(first ?? '')?.[1];
  if (!url) throw new Error(`the node did not start: ${first}`);
  return { url, token, stop: () => serve.kill('SIGTERM') };
}

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const dir = flag('--dir') ?? mkdtempSync(join(tmpdir(), 'langgraph-agent-'));
const thread = flag('--thread') ?? `thread-${Date.now()}`;
const prompt = args[0] ?? 'create note: Groceries';

const ledger = await node();
try {
  const checkpointer = SqliteSaver.fromConnString(join(dir, 'checkpoints.db'));
  const { graph, journal } = buildAgent({
    baseUrl: ledger.url,
    token: ledger.token,
    journalPath: join(dir, 'journal.db'),
    checkpointer,
  });
  const config = { configurable: { thread_id: thread } };
  // A thread with a checkpoint that has work left is resumed, not asked again.
  const pending = (await graph.getState(config)).next.length > 0;
  const state = await graph.invoke(pending ? null : ask(prompt), config);
  console.log(JSON.stringify({ thread, dir, resumed: pending, told: toolResults(state) }, null, 2));
  for (const e of journal.entries(thread)) {
    console.log(`${e.action.stepId}  ${e.action.tool} ${JSON.stringify(e.action.parameters)}  key=${e.key}  ${e.status}`);
  }
  journal.close();
} finally {
  ledger.stop();
}
