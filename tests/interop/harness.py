"""The shared harness of the Python interop clients (python_client, python_connect, python_proxy,
python_modern): the check runner, `expect`, `text_of`, the connection to a server by transport,
a sampling callback answering with fixed text, and the checks every bridge in front of
server-everything passes (`tinymcp connect` and `tinymcp proxy`).

Each script runs from this folder (`python tests/interop/<script>.py`), so `import harness` finds it.
"""

from __future__ import annotations

import sys
import traceback
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable

import anyio
import mcp_types as types
from mcp.client.session import ClientSession

Check = Callable[[], Awaitable[None]]


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if getattr(block, "type", None) == "text")


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


async def run_checks(checks: list[tuple[str, Check]], timeout: float = 30) -> tuple[int, int]:
    """Runs each check under its own deadline, one `ok` or `FAIL` line (with the traceback) each
    on stderr; answers how many passed and how many failed."""
    passed, failed = 0, 0
    for name, check in checks:
        try:
            with anyio.fail_after(timeout):
                await check()
            passed += 1
            print(f"ok   {name}", file=sys.stderr)
        except Exception:
            failed += 1
            print(f"FAIL {name}\n{traceback.format_exc()}", file=sys.stderr)
    return passed, failed


@asynccontextmanager
async def connect(transport: str, target: list[str]) -> AsyncIterator[tuple[Any, Any]]:
    """The read and write streams to a server: a command and its arguments (`stdio`), or the
    URL of its `/mcp` (`http`) or `/sse` (`sse`) endpoint."""
    if transport == "stdio":
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=target[0], args=target[1:])
        async with stdio_client(params) as streams:
            yield streams
    elif transport == "http":
        from mcp.client.streamable_http import streamable_http_client

        async with streamable_http_client(target[0]) as streams:
            yield streams[0], streams[1]
    elif transport == "sse":
        from mcp.client.sse import sse_client

        async with sse_client(target[0]) as streams:
            yield streams[0], streams[1]
    else:
        raise SystemExit(f"unknown transport {transport!r}")


def sampling_answer(text: str, sampled: list[Any]) -> Callable[[Any, Any], Awaitable[types.CreateMessageResult]]:
    """A sampling callback that keeps each request's params in `sampled` and answers `text`."""

    async def sampling(context: Any, params: Any) -> types.CreateMessageResult:
        sampled.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=text),
            model="interop-model",
            stop_reason="endTurn",
        )

    return sampling


BRIDGED_ANSWER = "bridged answer"


def bridge_checks(session: ClientSession, init: Any, sampled: list[Any]) -> list[tuple[str, Check]]:
    """What passes through a bridge to server-everything: the handshake, tools/list, a call,
    progress notifications on a call's stream, and a sampling request the client answers with
    `sampling_answer(BRIDGED_ANSWER, sampled)`."""

    async def handshake():
        expect(init.server_info.name != "tinymcp", f"serverInfo.name {init.server_info.name}")
        await session.send_ping()

    async def tools_list():
        names = {t.name for t in (await session.list_tools()).tools}
        for name in ("echo", "trigger-long-running-operation", "trigger-sampling-request"):
            expect(name in names, f"tool {name} missing from tools/list: {sorted(names)}")

    async def echo():
        result = await session.call_tool("echo", {"message": "over the bridge"})
        expect(text_of(result) == "Echo: over the bridge", f"echo said {text_of(result)!r}")

    async def progress():
        steps: list[float] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            steps.append(progress)

        await session.call_tool(
            "trigger-long-running-operation", {"duration": 1, "steps": 3}, progress_callback=on_progress
        )
        expect(len(steps) == 3, f"progress notifications: {steps}")

    async def sampling_round_trip():
        result = await session.call_tool("trigger-sampling-request", {"prompt": "hello", "maxTokens": 20})
        expect(len(sampled) == 1, f"sampling requests: {len(sampled)}")
        expect(BRIDGED_ANSWER in text_of(result), f"the tool saw {text_of(result)!r}")

    return [
        ("handshake", handshake),
        ("tools/list", tools_list),
        ("echo", echo),
        ("progress", progress),
        ("sampling", sampling_round_trip),
    ]
