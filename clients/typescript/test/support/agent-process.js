// One agent process, as a user runs it: a LangGraph.js graph checkpointed to SQLite and a
// ToolLedger journal file. MODE=start asks the model; MODE=resume continues the thread from its
// last checkpoint (invoke(null)), as after a crash. The last line on stdout is the outcome, JSON.
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { ask, buildAgent, toolResults } from '../../examples/agent.js';

const env = process.env;
const edit = env.EDIT_TITLE === 'true';
const checkpointer = SqliteSaver.fromConnString(env.CHECKPOINTS);
const { graph, journal } = buildAgent({
  baseUrl: env.BASE_URL,
  token: env.TOKEN,
  journalPath: env.JOURNAL,
  checkpointer,
  parameters: edit ? (a) => ({ ...a, title: `${a.title} (edited)` }) : undefined,
});
const config = { configurable: { thread_id: env.THREAD } };
const state = await graph.invoke(env.MODE === 'resume' ? null : ask(env.PROMPT), config);
const entries = journal.entries(env.THREAD).map((e) => ({ key: e.key, stepId: e.action.stepId, status: e.status }));
process.stdout.write(JSON.stringify({ told: toolResults(state), final: state.messages.at(-1).content, entries }) + '\n');
journal.close();
