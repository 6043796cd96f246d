"""An ActionTransport over ToolLedger's MCP endpoint with the official Python ``mcp`` SDK.

Optional: ``pip install 'toolledger[mcp]'``. Each attempt is one ``tools/call`` with the journal's
key in the request's ``_meta`` (``dev.toolledger/operation-key``), never in the arguments; a
lookup is one call of ``get-operation``. The SDK is asynchronous; this transport runs its
session on a background event loop (an anyio blocking portal), so the synchronous client, its
journal and its retry policy work unchanged. The transport never retries; the client does.
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from typing import Any, Optional

from .answers import classify_problem, found
from .journal import Action
from .outcome import Completed, NotFound, ProblemDetails, Unavailable
from .retry import AttemptResult, Done, Retry

KEY_META = "dev.toolledger/operation-key"
REPLAYED_META = "dev.toolledger/replayed"
STATUS_META = "dev.toolledger/status"
RETRY_AFTER_META = "dev.toolledger/retry-after-seconds"


class McpTransport:
    """ToolLedger's ``/mcp`` (streamable HTTP) through one SDK ``ClientSession``. Close it."""

    def __init__(self, url: str, token: str) -> None:
        import anyio.from_thread
        import httpx2  # noqa: F401 - the SDK's HTTP client; imported here to fail early
        from mcp import ClientSession
        from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

        self._portal_cm = anyio.from_thread.start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._anyio = anyio

        async def hold_session(closing: Any, *, task_status: Any) -> None:
            # The SDK's task groups must be entered and left by one task: this one, for the
            # session's whole life.
            async with AsyncExitStack() as stack:
                http = await stack.enter_async_context(
                    create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
                )
                streams = await stack.enter_async_context(streamable_http_client(url, http_client=http))
                session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
                await session.initialize()
                task_status.started(session)
                await closing.wait()

        self._hold_session = hold_session
        self._session: Any = None
        try:
            self._open()
        except BaseException:
            self._portal_cm.__exit__(None, None, None)
            raise

    def _open(self) -> None:
        closing = self._portal.call(self._anyio.Event)
        task, session = self._portal.start_task(self._hold_session, closing)
        self._current = (task, closing)
        self._session = session

    def _drop_session(self) -> None:
        """Ends the current session, whatever state the SDK left it in."""
        if self._session is None:
            return
        task, closing = self._current
        self._session = None
        try:
            self._portal.call(closing.set)
            task.result(timeout=10)
        except Exception:  # noqa: BLE001
            # The SDK re-raises, on closing, the transport errors of requests whose answers were
            # lost; each was already an attempt the client classified and retried.
            pass

    @classmethod
    def streamable_http(cls, url: str, token: str) -> "McpTransport":
        return cls(url, token)

    def _call(self, name: str, arguments: dict, meta: Optional[dict], timeout_s: float) -> Any:
        if self._session is None:
            self._open()
        session = self._session

        async def call() -> Any:
            return await session.call_tool(name, arguments, read_timeout_seconds=timeout_s, meta=meta)

        try:
            return self._portal.call(call)
        except Exception:
            # A lost answer leaves the SDK's streamable HTTP session broken; the next attempt
            # (same key) runs on a new session.
            self._drop_session()
            raise

    def send(self, key: str, action: Action, timeout_s: float) -> AttemptResult:
        if not isinstance(action.parameters, dict):
            from .outcome import Rejected

            return Done(Rejected(key, ProblemDetails.of(
                "invalid-parameters", 400, "Invalid parameters", "MCP arguments must be a JSON object")))
        try:
            result = self._call(action.tool, action.parameters, {KEY_META: key}, timeout_s)
        except Exception as e:  # noqa: BLE001 - a lost answer, a timeout, a JSON-RPC error: retried
            return Retry(f"MCP call failed ({e.__class__.__name__})")
        meta = _meta(result)
        content = getattr(result, "structured_content", None)
        if content is None:
            content = getattr(result, "structuredContent", None)
        if REPLAYED_META in meta:
            status = meta.get(STATUS_META) or (400 if getattr(result, "is_error", False) else 200)
            return Done(Completed(key, int(status), content, bool(meta[REPLAYED_META])))
        problem = ProblemDetails.from_document(content if isinstance(content, dict) else _text(result))
        retry_after = meta.get(RETRY_AFTER_META)
        return classify_problem(
            key, problem, float(retry_after) if retry_after is not None else None, "tool error",
            "a tool result without dev.toolledger/replayed is not a recorded ToolLedger outcome")

    def lookup(self, key: str, timeout_s: float) -> AttemptResult:
        try:
            result = self._call("get-operation", {"key": key}, None, timeout_s)
        except Exception as e:  # noqa: BLE001
            return Retry(f"MCP lookup failed ({e.__class__.__name__})")
        content = getattr(result, "structured_content", None)
        if content is None:
            content = getattr(result, "structuredContent", None)
        if not _is_error(result):
            try:
                return Done(found(key, content))
            except (ValueError, TypeError, KeyError):
                return Done(Unavailable(key, "the lookup answer could not be read"))
        problem = ProblemDetails.from_document(content if isinstance(content, dict) else {})
        if problem.slug == "not-found":
            return Done(NotFound(key))
        if problem.status in (408, 429) or problem.status >= 500 or problem.slug == "ledger-busy":
            return Retry(f"tool error {problem.status} {problem.slug or ''}".strip())
        return Done(Unavailable(key, f"the lookup was refused: {problem.slug or problem.status}"))

    def close(self) -> None:
        try:
            self._drop_session()
        finally:
            self._portal_cm.__exit__(None, None, None)

    def __enter__(self) -> "McpTransport":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _meta(result: Any) -> dict:
    meta = getattr(result, "meta", None)
    if meta is None:
        meta = getattr(result, "_meta", None)
    if meta is None and hasattr(result, "model_dump"):
        meta = result.model_dump(by_alias=True).get("_meta")
    return dict(meta or {})


def _is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


def _text(result: Any) -> dict:
    for block in getattr(result, "content", None) or []:
        text = getattr(block, "text", None)
        if text:
            try:
                doc = json.loads(text)
                return doc if isinstance(doc, dict) else {}
            except ValueError:
                return {}
    return {}
