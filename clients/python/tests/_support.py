"""Shared by the tests: the source on the path, and what the Maven harness hands the suite."""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE.parent / "examples"))

URL = os.environ.get("TOOLLEDGER_URL")
LOSSY_URL = os.environ.get("TOOLLEDGER_LOSSY_URL")
CONTROL = os.environ.get("TOOLLEDGER_PROXY_CONTROL")
TOKEN = os.environ.get("TOOLLEDGER_TOKEN")
LIVE = bool(URL and LOSSY_URL and CONTROL and TOKEN)
SKIP_LIVE = "no node: run through `mvn -B verify` (module clients), which starts one and sets TOOLLEDGER_URL etc."
REQUIRE_POLYGLOT = os.environ.get("TOOLLEDGER_REQUIRE_POLYGLOT") == "true"
VECTORS = HERE.parent.parent / "testdata" / "canonical-json.json"
EXAMPLE = HERE.parent / "examples" / "agent_loop.py"

_plain = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _json(method: str, url: str, token: str | None = None):
    request = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with _plain.open(request, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, None


class proxy:  # noqa: N801 - a namespace
    @staticmethod
    def drop_next(count: int = 1) -> None:
        _json("POST", f"{CONTROL}/drop?count={count}")

    @staticmethod
    def hold_next() -> None:
        _json("POST", f"{CONTROL}/hold")

    @staticmethod
    def release() -> None:
        _json("POST", f"{CONTROL}/release")

    @staticmethod
    def reset() -> None:
        _json("POST", f"{CONTROL}/reset")

    @staticmethod
    def stats() -> dict:
        return _json("GET", f"{CONTROL}/stats")[1]


def notes_titled(title: str) -> list[dict]:
    status, body = _json("GET", f"{URL}/v1/notes?limit=1000", TOKEN)
    assert status == 200, status
    return [n for n in body["notes"] if n["title"] == title]


def operation(key: str) -> dict | None:
    status, body = _json("GET", f"{URL}/v1/operations/{key}", TOKEN)
    return body if status == 200 else None


def unique(prefix: str) -> str:
    return f"{prefix} {os.getpid()}-{uuid.uuid4().hex[:8]}"


def until(what: str, check, seconds: float = 20) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.025)
    raise AssertionError(f"timed out waiting for {what}")
