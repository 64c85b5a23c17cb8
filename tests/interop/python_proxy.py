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
from typing import Any

import anyio
from mcp.client.session import ClientSession

from harness import BRIDGED_ANSWER, bridge_checks, connect, expect, run_checks, sampling_answer, text_of


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["http", "sse"], required=True)
    parser.add_argument("url")
    args = parser.parse_args()
    sampled: list[Any] = []
    sampling = sampling_answer(BRIDGED_ANSWER, sampled)

    async with connect(args.transport, [args.url]) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=20, sampling_callback=sampling) as session:
            init = await session.initialize()

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
                async with connect(args.transport, [args.url]) as (read2, write2):
                    async with ClientSession(read2, write2, read_timeout_seconds=20) as other:
                        await other.initialize()
                        result = await other.call_tool("echo", {"message": "second"})
                        expect(text_of(result) == "Echo: second", f"echo said {text_of(result)!r}")
                await session.send_ping()

            passed, failed = await run_checks(
                bridge_checks(session, init, sampled)
                + [("resources", resources), ("prompts", prompts), ("a second session", own_session)]
            )
    print(f"python-proxy ({args.transport}): {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
