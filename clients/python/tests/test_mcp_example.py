"""The worked example over MCP: the official Python mcp SDK's ClientSession, the journal's key in
each tools/call's _meta, through the lossy proxy."""

import importlib.util
import json
import os
import tempfile
import unittest

import _support
from _support import LOSSY_URL, TOKEN, notes_titled, operation, proxy, unique

HAVE_MCP = importlib.util.find_spec("mcp") is not None


@unittest.skipUnless(_support.LIVE, _support.SKIP_LIVE)
class McpExampleTest(unittest.TestCase):
    def setUp(self):
        if not HAVE_MCP:
            if _support.REQUIRE_POLYGLOT:
                self.fail("the mcp package is not installed and TOOLLEDGER_REQUIRE_POLYGLOT=true")
            self.skipTest("the mcp package is not installed (pip install mcp)")
        proxy.reset()

    def test_a_lost_tools_call_answer_is_retried_with_the_same_key_in_meta_one_note(self):
        from agent_loop import run

        from toolledger import ActionJournal, RetryPolicy, ToolLedgerClient
        from toolledger.mcp import McpTransport

        title = unique("py mcp lost answer")
        d = tempfile.mkdtemp()
        before = proxy.stats()
        proxy.drop_next(1)
        with ActionJournal(os.path.join(d, "journal.db")) as journal, McpTransport.streamable_http(
            LOSSY_URL + "/mcp", TOKEN
        ) as mcp:
            # A short attempt timeout bounds the attempt whose answer is lost.
            client = ToolLedgerClient(journal, transport=mcp, attempt_timeout_s=2,
                                      retry_policy=RetryPolicy(backoff_base_s=0.01, backoff_max_s=0.05))
            state = run(os.path.join(d, "state.json"), client, f"create note: {title}")
            [entry] = journal.entries(state["run_id"])
        after = proxy.stats()
        self.assertEqual(after["posts"] - before["posts"], 2, "the tools/call and one retry")
        self.assertEqual(after["dropped"] - before["dropped"], 1)
        notes = notes_titled(title)
        self.assertEqual(len(notes), 1)
        told = json.loads(state["messages"][-2]["content"])
        self.assertEqual((told["outcome"], told["replayed"], told["result"]["id"]), ("completed", True, notes[0]["id"]))
        self.assertEqual(operation(entry.key)["state"], "COMPLETED", "the journal's key is the one the node holds")


if __name__ == "__main__":
    unittest.main()
