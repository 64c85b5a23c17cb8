"""Interop: the official Python SDK client (PyPI `mcp`) through `tinymcp gateway` over
Streamable HTTP, at 2025-11-25 (`--mode legacy`: the initialize handshake) or 2026-07-28 (no
handshake; a sampling request comes back as an input-required result the SDK answers and
retries, which the gateway carries to its upstream again).

The gateway must serve an upstream named `tiny` running `tinymcp --everything`.

Usage:
    python_gateway.py --mode legacy|2026-07-28 <url of /mcp>

The last line is `python-gateway (<mode>): N passed, M failed`; the exit status is non-zero
when anything failed.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

import anyio
from mcp.client import Client

from harness import run_checks, sampling_answer


def text_of(result: Any) -> str:
    return result.content[0].text


async def run(mode: str, url: str) -> tuple[int, int]:
    sampled: list[Any] = []
    async with Client(url, mode=mode, sampling_callback=sampling_answer("Hello there!", sampled)) as client:

        async def revision() -> None:
            expected = "2026-07-28" if mode == "2026-07-28" else "2025-11-25"
            assert client.session.protocol_version == expected, client.session.protocol_version

        async def tools() -> None:
            names = [t.name for t in (await client.list_tools()).tools]
            assert "tiny__echo" in names and "tiny__add" in names, names
            assert all(n.startswith("tiny__") for n in names), names
            assert text_of(await client.call_tool("tiny__echo", {"message": "hi"})) == "Echo: hi"

        async def errors() -> None:
            result = await client.call_tool("tiny__test_error_handling", {})
            assert result.is_error, result

        async def sampling() -> None:
            result = await client.call_tool("tiny__test_sampling", {"prompt": "through"})
            assert text_of(result) == "LLM response: Hello there!", result
            assert sampled, "the sampling callback ran"

        async def prompts() -> None:
            listed = await client.list_prompts()
            assert any(p.name == "tiny__test_simple_prompt" for p in listed.prompts), listed
            got = await client.get_prompt("tiny__test_simple_prompt", {})
            assert got.messages[0].content.text, got

        async def resources() -> None:
            read = await client.read_resource("tiny+test://static-text")
            assert read.contents[0].text == "This is the content of the static text resource.", read
            assert str(read.contents[0].uri) == "tiny+test://static-text", read

        checks = [revision, tools, errors, sampling, prompts, resources]
        return await run_checks([(check.__name__, check) for check in checks])


def main() -> int:
    warnings.simplefilter("ignore")
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("url")
    args = parser.parse_args()
    passed, failed = anyio.run(run, args.mode, args.url)
    print(f"python-gateway ({args.mode}): {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
