"""Interop: the official Python SDK client (PyPI `mcp`) over Streamable HTTP or legacy SSE to
`tinymcp proxy`, in front of a stdio server that is not tinymcp (server-everything).

Usage:
    python_proxy.py --transport http <url of /mcp>
    python_proxy.py --transport sse  <url of /sse>

Checks what passes through the proxy: the handshake, tools/list, a call, progress
notifications on a call's stream, a sampling request the client answers, resources, prompts,
and a session of its own per client. The last line is `python-proxy (T): N passed, M failed`;
the exit status is non-zero when anything failed.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import asynccontextmanager
from typing import AsyncIterator
import traceback
from typing import Any

import anyio
import mcp_types as types
from mcp.client.session import ClientRequestContext, ClientSession


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if getattr(block, "type", None) == "text")


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


@asynccontextmanager
async def connect(transport: str, url: str) -> AsyncIterator[tuple]:
    if transport == "http":
        from mcp.client.streamable_http import streamable_http_client

        async with streamable_http_client(url) as streams:
            yield streams[0], streams[1]
    else:
        from mcp.client.sse import sse_client

        async with sse_client(url) as streams:
            yield streams[0], streams[1]


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["http", "sse"], required=True)
    parser.add_argument("url")
    args = parser.parse_args()
    sampled: list[Any] = []

    async def sampling(context: ClientRequestContext, params: types.CreateMessageRequestParams):
        sampled.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="bridged answer"),
            model="interop-model",
            stop_reason="endTurn",
        )

    passed, failed = 0, 0
    async with connect(args.transport, args.url) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=20, sampling_callback=sampling) as session:
            init = await session.initialize()

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
                expect("bridged answer" in text_of(result), f"the tool saw {text_of(result)!r}")

            async def resources():
                listed = (await session.list_resources()).resources
                expect(len(listed) > 0, "no resources listed")
                read = await session.read_resource(listed[0].uri)
                expect(len(read.contents) == 1, f"resources/read gave {len(read.contents)} contents")

            async def prompts():
                names = {p.name for p in (await session.list_prompts()).prompts}
                expect(len(names) > 0, "no prompts listed")

            async def own_session():
                # A second client gets a process of its own: both answer at once.
                async with connect(args.transport, args.url) as (read2, write2):
                    async with ClientSession(read2, write2, read_timeout_seconds=20) as other:
                        await other.initialize()
                        result = await other.call_tool("echo", {"message": "second"})
                        expect(text_of(result) == "Echo: second", f"echo said {text_of(result)!r}")
                await session.send_ping()

            for name, check in [
                ("handshake", handshake),
                ("tools/list", tools_list),
                ("echo", echo),
                ("progress", progress),
                ("sampling", sampling_round_trip),
                ("resources", resources),
                ("prompts", prompts),
                ("a second session", own_session),
            ]:
                try:
                    with anyio.fail_after(30):
                        await check()
                    passed += 1
                    print(f"ok   {name}", file=sys.stderr)
                except Exception:
                    failed += 1
                    print(f"FAIL {name}\n{traceback.format_exc()}", file=sys.stderr)
    print(f"python-proxy ({args.transport}): {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
