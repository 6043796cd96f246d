// A host on the official TypeScript MCP SDK: launches `toolledger guard` over stdio, as Claude
// Desktop, Cursor or VS Code do, and calls its tools without any operation key. GuardPolyglotTest
// runs it with GUARD_COMMAND (a JSON array: the command and its arguments), TOOLLEDGER_TOKEN and
// NOTE_TITLE in the environment, and reads the one JSON line it prints.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = JSON.parse(process.env.GUARD_COMMAND);
const transport = new StdioClientTransport({
  command,
  args,
  // As a host's "env" entry: the token reaches the guard through its environment only.
  env: { ...getDefaultEnvironment(), TOOLLEDGER_TOKEN: process.env.TOOLLEDGER_TOKEN },
  stderr: "inherit",
});
const client = new Client({ name: "polyglot-typescript-host", version: "1.0.0" });
await client.connect(transport);

const note = { title: process.env.NOTE_TITLE };
const out = {};
out.tools = (await client.listTools()).tools.map((tool) => tool.name);
out.first = await client.callTool({ name: "create-note", arguments: note });
out.second = await client.callTool({ name: "create-note", arguments: note });
out.pending = await client.callTool({ name: "pending-actions", arguments: {} });
out.lookup = await client.callTool({
  name: "get-operation",
  arguments: { action: out.first._meta["dev.toolledger/action"] },
});
process.stdout.write(JSON.stringify(out) + "\n");
await client.close();
