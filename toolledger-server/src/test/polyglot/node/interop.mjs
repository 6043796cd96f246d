// Run by McpPolyglotTaskInteropTest against a real ToolLedger node: initialize, list tools, a keyed
// create and its replay, then a task for a call that another attempt still holds, polled until it
// completes. Prints one JSON line of findings; exits non-zero when a check fails.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { randomUUID } from 'node:crypto';

const KEY = 'dev.toolledger/operation-key';
const { MCP_URL, TOKEN, HELD_TOOL, HELD_KEY } = process.env;

function check(condition, what) {
  if (!condition) {
    console.error('check failed: ' + what);
    process.exit(1);
  }
}

const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
  requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } }
});
const client = new Client(
  { name: 'toolledger-interop-ts', version: '1.0.0' },
  { capabilities: { tasks: { list: {}, requests: {} } } }
);
await client.connect(transport);
const protocolVersion = transport.protocolVersion;
check(client.getServerCapabilities()?.tasks?.requests?.tools?.call, 'server declares tasks for tools/call');

const tools = (await client.listTools()).tools;
const create = tools.find(t => t.name === 'create-note');
check(create, 'create-note is listed');
check(create.execution?.taskSupport === 'optional', 'create-note accepts tasks');

const key = 'ts-' + randomUUID();
const call = { name: 'create-note', arguments: { title: 'from typescript' }, _meta: { [KEY]: key } };
const first = await client.callTool(call);
const again = await client.callTool(call);
check(!first.isError && first._meta['dev.toolledger/replayed'] === false, 'the first call executed');
check(again._meta['dev.toolledger/replayed'] === true, 'the second call replayed');
check(again.structuredContent.id === first.structuredContent.id, 'the replay is the recorded outcome');

const statuses = [];
let result;
const stream = client.experimental.tasks.callToolStream(
  { name: HELD_TOOL, arguments: { title: 'held' }, _meta: { [KEY]: HELD_KEY } },
  undefined,
  { task: { ttl: 60000 } }
);
for await (const message of stream) {
  if (message.type === 'taskCreated' || message.type === 'taskStatus') statuses.push(message.task.status);
  if (message.type === 'result') result = message.result;
  if (message.type === 'error') check(false, 'task stream error: ' + message.error.message);
}
check(statuses[0] === 'working', 'the held call became a working task: ' + statuses);
check(statuses[statuses.length - 1] === 'completed', 'the task completed');
check(result && !result.isError && result.structuredContent.title === 'held', 'the task result is the outcome');
check(result._meta['dev.toolledger/replayed'] === true, 'the task result is replayed');

await transport.terminateSession();
await client.close();
console.log(JSON.stringify({ sdk: 'typescript', protocolVersion, statuses, replayed: true }));
