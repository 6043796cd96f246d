"""Run by McpPolyglotTaskInteropTest against a real ToolLedger node with the official MCP Python
SDK: connect (the SDK probes server/discover, then falls back to initialize), list tools, a keyed
create and its replay. The SDK (mcp 2.3.0) has no client for tasks, so none is polled here. Prints
one JSON line of findings; exits non-zero when a check fails."""

import asyncio
import json
import os
import sys
import uuid

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

KEY = "dev.toolledger/operation-key"


def check(condition, what):
    if not condition:
        print("check failed: " + what, file=sys.stderr)
        sys.exit(1)


async def main():
    http = create_mcp_http_client(headers={"Authorization": "Bearer " + os.environ["TOKEN"]})
    async with http:
        transport = streamable_http_client(os.environ["MCP_URL"], http_client=http)
        async with Client(transport) as client:
            tools = (await client.list_tools()).tools
            check(any(t.name == "create-note" for t in tools), "create-note is listed")
            key = "py-" + str(uuid.uuid4())
            first = await client.call_tool("create-note", {"title": "from python"}, meta={KEY: key})
            again = await client.call_tool("create-note", {"title": "from python"}, meta={KEY: key})
            check(not first.is_error and first.meta["dev.toolledger/replayed"] is False, "first executed")
            check(again.meta["dev.toolledger/replayed"] is True, "second replayed")
            check(
                again.structured_content["id"] == first.structured_content["id"],
                "the replay is the recorded outcome",
            )
            print(json.dumps({"sdk": "python", "protocolVersion": client.protocol_version, "replayed": True}))


asyncio.run(main())
