"""Against a real node and the testkit's LossyProxy, both started by the Maven harness."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import unittest

import _support
from _support import LOSSY_URL, TOKEN, URL, notes_titled, operation, proxy, unique, until

from toolledger import COMPLETED, PENDING, UNKNOWN, ActionConflictError, ActionJournal, RetryPolicy, ToolLedgerClient

FAST = RetryPolicy(backoff_base_s=0.005, backoff_max_s=0.05, deadline_s=20)


def told(state_or_answer):
    """What the model was told: the tool messages' JSON, in order."""
    return [json.loads(m["content"]) for m in state_or_answer["messages"] if m["role"] == "tool"]


@unittest.skipUnless(_support.LIVE, _support.SKIP_LIVE)
class ClientAgainstARealNodeTest(unittest.TestCase):
    def setUp(self):
        proxy.reset()
        self.dir = tempfile.mkdtemp()
        self.journal = ActionJournal(os.path.join(self.dir, "journal.db"))
        self.client = ToolLedgerClient(self.journal, base_url=LOSSY_URL, token=TOKEN, retry_policy=FAST)

    def tearDown(self):
        self.journal.close()

    def test_a_lost_answer_after_the_commit_is_retried_with_the_same_key_one_note(self):
        title = unique("py lost answer")
        before = proxy.stats()
        proxy.drop_next(1)
        outcome = self.client.execute("run-1", "step-1", "create-note", {"title": title})
        self.assertEqual((outcome.kind, outcome.replayed), ("completed", True))
        after = proxy.stats()
        self.assertEqual(after["posts"] - before["posts"], 2)
        self.assertEqual(after["dropped"] - before["dropped"], 1)
        notes = notes_titled(title)
        self.assertEqual(len(notes), 1)
        self.assertEqual(outcome.body["id"], notes[0]["id"])
        again = self.client.execute("run-1", "step-1", "create-note", {"title": title})
        self.assertEqual((again.key, again.body), (outcome.key, outcome.body))
        self.assertEqual(proxy.stats()["posts"], after["posts"], "answered by the journal")

    def test_changed_parameters_under_a_journaled_step_are_refused_and_not_sent(self):
        title = unique("py conflict")
        self.client.execute("run", "step", "create-note", {"title": title})
        before = proxy.stats()
        with self.assertRaises(ActionConflictError):
            self.client.execute("run", "step", "create-note", {"title": title + "!"})
        self.assertEqual(proxy.stats()["posts"], before["posts"])
        self.assertEqual(notes_titled(title + "!"), [])

    def test_a_dead_endpoint_ends_unknown_and_resume_settles_it_with_the_same_key(self):
        dead = ToolLedgerClient(self.journal, base_url="http://127.0.0.1:9", token=TOKEN, retry_policy=FAST)
        title = unique("py unknown")
        first = dead.execute("run-u", "s", "create-note", {"title": title})
        self.assertEqual(first.kind, "unknown")
        self.assertEqual(self.journal.find("run-u", "s").status, UNKNOWN)
        client = ToolLedgerClient(self.journal, base_url=URL, token=TOKEN, retry_policy=FAST)
        [(entry, outcome)] = client.resume("run-u")
        self.assertEqual((entry.key, outcome.kind), (first.key, "completed"))
        self.assertEqual(len(notes_titled(title)), 1)
        self.assertEqual(client.lookup(first.key).state, "COMPLETED")


def agent(state, journal, prompt, *extra, on_start=None):
    """The example agent loop in its own process, through the lossy proxy."""
    env = {**os.environ, "TOOLLEDGER_URL": LOSSY_URL, "TOOLLEDGER_TOKEN": TOKEN}
    child = subprocess.Popen(
        [sys.executable, str(_support.EXAMPLE), "--state", state, "--journal", journal, "--prompt", prompt, *extra],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    if on_start:
        on_start(child)
    out, err = child.communicate(timeout=120)
    return child.returncode, out, err


@unittest.skipUnless(_support.LIVE, _support.SKIP_LIVE)
class HandWrittenLoopTest(unittest.TestCase):
    """The loop keeps run id and step numbers in its own state file; the journal keeps the keys."""

    def setUp(self):
        proxy.reset()
        self.dir = tempfile.mkdtemp()
        self.state = os.path.join(self.dir, "state.json")
        self.journal_path = os.path.join(self.dir, "journal.db")

    def kill_after_commit(self, prompt):
        before = proxy.stats()
        proxy.hold_next()

        def kill_when_held(child):
            until("the committed create to be held", lambda: proxy.stats()["held"] == 1)
            child.send_signal(signal.SIGKILL)

        code, _, err = agent(self.state, self.journal_path, prompt, on_start=kill_when_held)
        proxy.release()
        self.assertEqual(code, -signal.SIGKILL, err)
        until("the held answer to be dropped", lambda: proxy.stats()["held"] == 0)
        held = proxy.stats()
        self.assertEqual(held["posts"] - before["posts"], 1, "one create reached the node before the kill")
        return held

    def test_killed_after_the_commit_and_resumed_from_its_state_same_key_no_second_post_one_note(self):
        title = unique("py killed")
        held = self.kill_after_commit(f"create note: {title}")
        with open(self.state) as f:
            run_id = json.load(f)["run_id"]
        with ActionJournal(self.journal_path) as journal:
            [pending] = journal.entries(run_id)
        self.assertEqual((pending.status, pending.action.step_id), (PENDING, "step-0"))
        self.assertEqual(operation(pending.key)["state"], "COMPLETED", "the node committed under that key")

        code, out, err = agent(self.state, self.journal_path, "ignored on resume")
        self.assertEqual(code, 0, err)
        self.assertEqual(proxy.stats()["posts"], held["posts"], "looked up, not sent again")
        result = json.loads(out.strip().splitlines()[-1])
        notes = notes_titled(title)
        self.assertEqual(len(notes), 1)
        [answer] = json.loads(result["answer"].removeprefix("Tool results: "))
        self.assertEqual((answer["outcome"], answer["replayed"], answer["result"]["id"]), ("completed", True, notes[0]["id"]))
        # The journal explains the step: its id, tool, parameters, key, status and response.
        [entry] = result["journal"]
        self.assertEqual(
            (entry["step"], entry["tool"], entry["parameters"], entry["key"], entry["status"]),
            ("step-0", "create-note", {"title": title}, pending.key, COMPLETED),
        )
        self.assertEqual(json.loads(entry["response"])["id"], notes[0]["id"])

    def test_resumed_with_changed_arguments_for_the_same_step_refused_and_not_sent(self):
        title = unique("py edited")
        held = self.kill_after_commit(f"create note: {title}")
        code, out, err = agent(self.state, self.journal_path, "ignored", "--edit-title")
        self.assertEqual(code, 0, err)
        self.assertEqual(proxy.stats()["posts"], held["posts"], "nothing sent")
        [answer] = json.loads(json.loads(out.strip().splitlines()[-1])["answer"].removeprefix("Tool results: "))
        self.assertEqual(answer["outcome"], "rejected")
        self.assertTrue(answer["problem"]["type"].endswith("idempotency-key-reused"))
        self.assertEqual(notes_titled(f"{title} (edited)"), [])
        self.assertEqual(len(notes_titled(title)), 1)

    def test_a_new_run_with_identical_arguments_is_new_and_two_identical_calls_in_a_run_are_two(self):
        from agent_loop import run

        title = unique("py same title")
        with ActionJournal(self.journal_path) as journal:
            client = ToolLedgerClient(journal, base_url=LOSSY_URL, token=TOKEN, retry_policy=FAST)
            a = run(os.path.join(self.dir, "a.json"), client, f"create note: {title}")
            b = run(os.path.join(self.dir, "b.json"), client, f"create note: {title}")
            c = run(os.path.join(self.dir, "c.json"), client, f"create twice: {title}")
            self.assertEqual([(t["outcome"], t["replayed"]) for t in told(c)], [("completed", False)] * 2)
            entries = [e for s in (a, b, c) for e in journal.entries(s["run_id"])]
            self.assertEqual(len({e.key for e in entries}), 4)
            self.assertEqual([e.action.step_id for e in journal.entries(c["run_id"])], ["step-0", "step-1"])
            for e in entries:
                self.assertEqual((e.status, e.action.parameters), (COMPLETED, {"title": title}))
                self.assertEqual(operation(e.key)["state"], "COMPLETED")
        self.assertEqual(len(notes_titled(title)), 4)


if __name__ == "__main__":
    unittest.main()
