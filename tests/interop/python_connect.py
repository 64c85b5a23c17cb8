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
from typing import Any

import anyio
from mcp.client.session import ClientSession

from harness import BRIDGED_ANSWER, bridge_checks, connect, run_checks, sampling_answer


async def main() -> int:
    target = [a for a in sys.argv[1:] if a != "--"]
    sampled: list[Any] = []
    sampling = sampling_answer(BRIDGED_ANSWER, sampled)
    async with connect("stdio", target) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=20, sampling_callback=sampling) as session:
            init = await session.initialize()
            passed, failed = await run_checks(bridge_checks(session, init, sampled))
    print(f"python-connect: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
