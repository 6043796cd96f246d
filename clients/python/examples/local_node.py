"""Starts a throwaway ToolLedger node with the repository's ./toolledger script (examples only)."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[3]


@contextmanager
def node() -> Iterator[tuple[str, str]]:
    """(base URL, token): TOOLLEDGER_URL and TOOLLEDGER_TOKEN if set, else a new local node."""
    if os.environ.get("TOOLLEDGER_URL") and os.environ.get("TOOLLEDGER_TOKEN"):
        yield os.environ["TOOLLEDGER_URL"], os.environ["TOOLLEDGER_TOKEN"]
        return
    script = str(REPO / "toolledger")
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "ledger.db")
        token = subprocess.run(
            [script, "tokens", "create", "--tenant", "example", "--db", db],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
        serve = subprocess.Popen(
            [script, "serve", "--port", "0", "--db", db],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        try:
            first = serve.stdout.readline()
            match = re.search(r"serving (http://\S+)", first)
            if not match:
                raise RuntimeError(f"the node did not start: {first!r}")
            yield match.group(1), token
        finally:
            serve.terminate()
            serve.wait(30)
