"""A hand-written agent loop whose tool calls keep their operation keys across a crash.

The loop keeps its own state in a JSON file (the messages, the run id, the next step number and
the tool calls it has decided on but not finished) and saves it, fsynced, *before* it executes a
tool call. Each call's step is ``ActionJournal.step(run_id, n)``: a loop restarted from its file
names the same steps, so the journal hands back the same keys and ToolLedger replays what was
already done instead of doing it again. The model is scripted (no network, no API key).

    python3 clients/python/examples/agent_loop.py --prompt "create note: Groceries"
    python3 clients/python/examples/agent_loop.py --prompt "create note: Groceries" --mcp

Without TOOLLEDGER_URL and TOOLLEDGER_TOKEN it starts a throwaway node with ./toolledger.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from toolledger import ActionConflictError, ActionJournal, RetryPolicy, ToolLedgerClient  # noqa: E402
from toolledger import conflict_text, model_text  # noqa: E402


def scripted_model(messages: list[dict]) -> dict:
    """'create note: T' asks for create-note once, 'create twice: T' twice; tool results end the turn."""
    last = messages[-1]
    if last["role"] == "tool":
        results = []
        for m in reversed(messages):
            if m["role"] != "tool":
                break
            results.insert(0, json.loads(m["content"]))
        return {"role": "assistant", "content": "Tool results: " + json.dumps(results)}
    verb, _, title = last["content"].partition(": ")
    calls = 2 if verb == "create twice" else 1
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": f"call_{uuid.uuid4().hex}", "name": "create-note", "args": {"title": title}} for _ in range(calls)
        ],
    }


def load(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def save(path: str, state: dict) -> None:
    """Atomically and durably: a crash leaves the old state or the new one, never half of one."""
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def run(
    state_path: str,
    client: ToolLedgerClient,
    prompt: str | None = None,
    model: Callable[[list[dict]], dict] = scripted_model,
    parameters: Callable[[dict], Any] = lambda args: args,
) -> dict:
    """Runs (or, when the state file exists, resumes) one run to the model's final answer."""
    state = load(state_path)
    if state is None:
        state = {"run_id": f"run-{uuid.uuid4()}", "next_step": 0, "pending": [],
                 "messages": [{"role": "user", "content": prompt}]}
        save(state_path, state)
    while True:
        if state["pending"]:
            for call in state["pending"]:
                step = ActionJournal.step(state["run_id"], call["step"])
                try:
                    text = model_text(client.execute_step(step, call["name"], parameters(call["args"])))
                except ActionConflictError as e:
                    text = conflict_text(e)  # nothing was sent
                state["messages"].append({"role": "tool", "tool_call_id": call["id"], "content": text})
            state["pending"] = []
            save(state_path, state)
            continue
        reply = model(state["messages"])
        state["messages"].append(reply)
        calls = reply.get("tool_calls") or []
        for call in calls:  # the step identity is decided here and saved before anything is sent
            state["pending"].append({**call, "step": state["next_step"]})
            state["next_step"] += 1
        save(state_path, state)
        if not calls:
            return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt", default="create note: Groceries")
    parser.add_argument("--state", help="the loop's state file (default: a new temporary one)")
    parser.add_argument("--journal", help="the action journal (default: next to the state file)")
    parser.add_argument("--mcp", action="store_true", help="call ToolLedger over MCP with the mcp SDK")
    parser.add_argument("--edit-title", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    state_path = args.state or os.path.join(tempfile.mkdtemp(), "agent-state.json")
    journal_path = args.journal or state_path + ".journal.db"
    parameters = (lambda a: {**a, "title": a["title"] + " (edited)"}) if args.edit_title else (lambda a: a)

    from local_node import node

    with node() as (url, token), ActionJournal(journal_path) as journal:
        policy = RetryPolicy(backoff_base_s=0.01, backoff_max_s=0.1)
        if args.mcp:
            from toolledger.mcp import McpTransport

            with McpTransport.streamable_http(url.rstrip("/") + "/mcp", token) as mcp:
                state = run(state_path, ToolLedgerClient(journal, transport=mcp, retry_policy=policy),
                            args.prompt, parameters=parameters)
        else:
            state = run(state_path, ToolLedgerClient(journal, base_url=url, token=token, retry_policy=policy),
                        args.prompt, parameters=parameters)
        entries = [
            {"step": e.action.step_id, "tool": e.action.tool, "parameters": e.action.parameters,
             "key": e.key, "status": e.status, "response": e.response_body}
            for e in journal.entries(state["run_id"])
        ]
    print(json.dumps({"run_id": state["run_id"], "answer": state["messages"][-1]["content"], "journal": entries}))


if __name__ == "__main__":
    main()
