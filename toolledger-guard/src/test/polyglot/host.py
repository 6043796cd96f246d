"""A host on the official Python MCP SDK (`pip install mcp`): launches `toolledger guard` over
stdio and calls its tools without any operation key. GuardPolyglotTest runs it with GUARD_COMMAND
(a JSON array: the command and its arguments), TOOLLEDGER_TOKEN and NOTE_TITLE in the environment,
and reads the one JSON line it prints."""

import asyncio
import json
import os

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def dump(result):
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main():
    command = json.loads(os.environ["GUARD_COMMAND"])
    params = StdioServerParameters(
        command=command[0],
        args=command[1:],
        # As a host's "env" entry: the token reaches the guard through its environment only.
        env={"PATH": os.environ.get("PATH", ""), "TOOLLEDGER_TOKEN": os.environ["TOOLLEDGER_TOKEN"]},
    )
    note = {"title": os.environ["NOTE_TITLE"]}
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            out["tools"] = [tool.name for tool in (await session.list_tools()).tools]
            out["first"] = dump(await session.call_tool("create-note", note))
            out["second"] = dump(await session.call_tool("create-note", note))
            out["pending"] = dump(await session.call_tool("pending-actions", {}))
            action = out["first"]["_meta"]["dev.toolledger/action"]
            out["lookup"] = dump(await session.call_tool("get-operation", {"action": action}))
    print(json.dumps(out), flush=True)


asyncio.run(main())
