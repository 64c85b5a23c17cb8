"""Interop: the official Python SDK client (PyPI `mcp`) over Streamable HTTP or legacy SSE to
`tinymcp proxy`, in front of a stdio server that is not tinymcp (server-everything).

Usage:
    python_proxy.py --transport http <url of /mcp>
    python_proxy.py --transport sse  <url of /sse>

Checks what passes through the proxy: the handshake, tools/list, a call, progress
notifications on a call's stream, a sampling request the client answers, resources, prompts,
completion, an elicitation request the client accepts, a resource subscription's
notifications/resources/updated, a long call the client cancels (no answer to it, the session
still works), and a session of its own per client. The last line is
`python-proxy (T): N passed, M failed`; the exit status is non-zero when anything failed.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import anyio
import jsonschema
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.shared.message import SessionMessage

from harness import BRIDGED_ANSWER, bridge_checks, connect, expect, run_checks, sampling_answer, text_of

# What the elicitation callback answers: a value of the right type for some of the fields of
# server-everything's trigger-elicitation-request schema, `name` (the required one) among them.
ELICITED = {"name": "Ada Lovelace", "check": True, "email": "ada@example.com", "integer": 7, "number": 2.5}


@asynccontextmanager
async def tapped(read: Any, wire: list[Any]) -> AsyncIterator[Any]:
    """`read` with every JSON-RPC message the client receives also kept in `wire`, so a check
    can see an answer the SDK would drop (one to a request it stopped waiting for)."""
    send, receive = anyio.create_memory_object_stream[Any](0)

    async def pump() -> None:
        async with send:
            async for item in read:
                if isinstance(item, SessionMessage):
                    wire.append(item.message)
                await send.send(item)

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump)
        try:
            yield receive
        finally:
            tg.cancel_scope.cancel()


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["http", "sse"], required=True)
    parser.add_argument("url")
    args = parser.parse_args()
    # The SDK warns that subscriptions leave the protocol in 2026-07-28; this client speaks
    # 2025-11-25, where they are current.
    warnings.filterwarnings("ignore", message=".*removed as of 2026-07-28.*")
    sampled: list[Any] = []
    sampling = sampling_answer(BRIDGED_ANSWER, sampled)
    elicited: list[Any] = []
    notifications: list[Any] = []
    wire: list[Any] = []

    async def elicitation(context: Any, params: Any) -> types.ElicitResult:
        elicited.append(params)
        return types.ElicitResult(action="accept", content=ELICITED)

    async def on_message(message: Any) -> None:
        notifications.append(message)

    async with connect(args.transport, [args.url]) as (raw_read, write), tapped(raw_read, wire) as read:
        async with ClientSession(
            read,
            write,
            read_timeout_seconds=20,
            sampling_callback=sampling,
            elicitation_callback=elicitation,
            message_handler=on_message,
        ) as session:
            init = await session.initialize()

            async def resources():
                listed = (await session.list_resources()).resources
                expect(len(listed) > 0, "no resources listed")
                read = await session.read_resource(listed[0].uri)
                expect(len(read.contents) == 1, f"resources/read gave {len(read.contents)} contents")

            async def prompts():
                names = {p.name for p in (await session.list_prompts()).prompts}
                expect(len(names) > 0, "no prompts listed")

            async def completion():
                prompt = types.PromptReference(type="ref/prompt", name="completable-prompt")
                got = await session.complete(prompt, {"name": "department", "value": "S"})
                expect(got.completion.values == ["Sales", "Support"], f"department: {got.completion}")
                # The second argument's values depend on the first, sent as context.
                got = await session.complete(prompt, {"name": "name", "value": ""}, {"department": "Engineering"})
                expect(got.completion.values == ["Alice", "Bob", "Charlie"], f"name: {got.completion}")
                template = types.ResourceTemplateReference(
                    type="ref/resource", uri="demo://resource/dynamic/text/{resourceId}"
                )
                got = await session.complete(template, {"name": "resourceId", "value": "12"})
                expect(got.completion.values == ["12"], f"resourceId: {got.completion}")

            async def elicitation_round_trip():
                # Registered only for a client that declares elicitation (the SDK does, given a callback).
                names = {t.name for t in (await session.list_tools()).tools}
                expect("trigger-elicitation-request" in names, f"no trigger-elicitation-request: {sorted(names)}")
                result = await session.call_tool("trigger-elicitation-request", {})
                expect(len(elicited) == 1, f"elicitation requests: {len(elicited)}")
                asked = elicited[0]
                expect(isinstance(asked, types.ElicitRequestFormParams), f"elicitation params {asked!r}")
                expect(asked.requested_schema.get("required") == ["name"], f"schema {asked.requested_schema}")
                # The answer fits what was asked (jsonschema comes with the SDK).
                jsonschema.validate(ELICITED, asked.requested_schema, format_checker=jsonschema.FormatChecker())
                text = text_of(result)
                for line in ("- Name: Ada Lovelace", "- Email: ada@example.com", "- Favorite Integer: 7"):
                    expect(line in text, f"{line!r} not in {text!r}")

            async def subscriptions():
                uri = (await session.list_resources()).resources[0].uri
                await session.subscribe_resource(uri)
                # Starts updates of this session's subscriptions: one at once, then one every 5 s.
                started = await session.call_tool("toggle-subscriber-updates", {})
                expect(text_of(started).startswith("Started"), f"toggle said {text_of(started)!r}")
                try:
                    with anyio.fail_after(6):
                        while not any(
                            isinstance(n, types.ResourceUpdatedNotification) and str(n.params.uri) == uri
                            for n in notifications
                        ):
                            await anyio.sleep(0.02)
                finally:
                    stopped = await session.call_tool("toggle-subscriber-updates", {})
                    expect(text_of(stopped).startswith("Stopped"), f"toggle said {text_of(stopped)!r}")
                    await session.unsubscribe_resource(uri)

            async def cancellation():
                # A 1.2 s call with a progress every 0.3 s, cancelled at its first progress: the
                # SDK sends notifications/cancelled; no answer to it may arrive, even after the
                # call would have ended, and the session still answers.
                first = anyio.Event()
                finished: list[Any] = []

                async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                    first.set()

                async def call() -> None:
                    finished.append(
                        await session.call_tool(
                            "trigger-long-running-operation",
                            {"duration": 1.2, "steps": 4},
                            progress_callback=on_progress,
                        )
                    )

                mark, started = len(wire), anyio.current_time()
                async with anyio.create_task_group() as tg:
                    tg.start_soon(call)
                    await first.wait()
                    tg.cancel_scope.cancel()
                expect(not finished, "the cancelled call got its result")
                # The SDK uses the request id as the progress token.
                ids = {
                    m.params["progressToken"]
                    for m in wire[mark:]
                    if isinstance(m, types.JSONRPCNotification) and m.method == "notifications/progress"
                }
                expect(len(ids) == 1, f"progress tokens on the wire: {ids}")
                await anyio.sleep(max(0.0, started + 1.8 - anyio.current_time()))
                result = await session.call_tool("echo", {"message": "after cancel"})
                expect(text_of(result) == "Echo: after cancel", f"echo said {text_of(result)!r}")
                answers = [
                    m
                    for m in wire[mark:]
                    if isinstance(m, (types.JSONRPCResponse, types.JSONRPCError)) and m.id in ids
                ]
                expect(not answers, f"an answer to the cancelled call: {answers}")

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
                + [
                    ("resources", resources),
                    ("prompts", prompts),
                    ("completion", completion),
                    ("elicitation", elicitation_round_trip),
                    ("subscriptions", subscriptions),
                    ("cancellation", cancellation),
                    ("a second session", own_session),
                ]
            )
    print(f"python-proxy ({args.transport}): {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
