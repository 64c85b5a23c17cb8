"""Interop: the official Python SDK client (PyPI `mcp`) over stdio to `tinymcp connect URL`, in
front of a server that is not tinymcp (server-everything's Streamable HTTP transport).

Usage:
    python_connect.py -- <tinymcp> connect <url of /mcp>

Checks what passes through the bridge: the handshake, tools/list, a call, progress
notifications on a call's stream, and a sampling request the host answers. The last line is
`python-connect: N passed, M failed`; the exit status is non-zero when anything failed.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

import anyio
import mcp_types as types
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if getattr(block, "type", None) == "text")


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


async def main() -> int:
    target = [a for a in sys.argv[1:] if a != "--"]
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
    params = StdioServerParameters(command=target[0], args=target[1:])
    async with stdio_client(params) as (read, write):
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

            for name, check in [
                ("handshake", handshake),
                ("tools/list", tools_list),
                ("echo", echo),
                ("progress", progress),
                ("sampling", sampling_round_trip),
            ]:
                try:
                    with anyio.fail_after(30):
                        await check()
                    passed += 1
                    print(f"ok   {name}", file=sys.stderr)
                except Exception:
                    failed += 1
                    print(f"FAIL {name}\n{traceback.format_exc()}", file=sys.stderr)
    print(f"python-connect: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
