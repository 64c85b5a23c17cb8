"""Interop: the official Python SDK client (PyPI `mcp`) through ONE `tinymcp gateway` in front of
real servers nobody here wrote (scripts/gateway-interop.sh starts them): `everything`
(server-everything), `memory` (server-memory), `files` (server-filesystem on FILES), `time`
(mcp-server-time), `git` (mcp-server-git on REPO) and, with `--tls`, `tls` (`tinymcp --everything`
behind TLS), at 2025-11-25 (`--mode legacy`) or 2026-07-28 (no handshake; what an upstream asks
during a call comes back as an input-required result the SDK answers and retries).

Usage:
    python_gateway_all.py --mode legacy|2026-07-28 [--tls] --files DIR --repo DIR <url of /mcp>
    python_gateway_all.py --size LABEL <url of /mcp>

The first form lists every tool (namespaced, all pages), calls one tool of each upstream and
asserts on its answer, reads resources, gets a prompt, completes, subscribes, cancels a long call
and answers server-everything's sampling and elicitation; its last line is
`python-gateway-all (<mode>): N passed, M failed` (exit status non-zero when anything failed).
The second prints `size LABEL BYTES bytes, N tools`: the JSON of the tool list a client gets.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any

import anyio
import mcp_types as types
from mcp.client import Client

from harness import expect, run_checks, sampling_answer, text_of

ANSWER = "answered through the gateway"
ELICITED = {"name": "Ada Lovelace", "check": True, "email": "ada@example.com", "integer": 7, "number": 2.5}
UPSTREAMS = ["everything", "memory", "files", "time", "git"]


async def all_tools(client: Client) -> list[Any]:
    tools, cursor = [], None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            return tools


async def size(label: str, url: str) -> int:
    async with Client(url, mode="legacy") as client:
        tools = await all_tools(client)
    listed = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
    names = [t["name"] for t in listed]
    if label == "discovery":
        expect(sorted(names) == ["call_tool", "search_tools"], f"discovery lists {names}")
    print(f"size {label} {len(json.dumps(listed, separators=(',', ':')).encode())} bytes, {len(listed)} tools")
    return 0


async def run(args: argparse.Namespace) -> tuple[int, int]:
    mode, modern = args.mode, args.mode == "2026-07-28"
    upstreams = UPSTREAMS + (["tls"] if args.tls else [])
    sampled: list[Any] = []
    elicited: list[Any] = []
    notifications: list[Any] = []

    async def elicitation(context: Any, params: Any) -> types.ElicitResult:
        elicited.append(params)
        return types.ElicitResult(action="accept", content=ELICITED)

    async def on_message(message: Any) -> None:
        notifications.append(message)

    async with Client(
        args.url,
        mode=mode,
        read_timeout_seconds=30,
        sampling_callback=sampling_answer(ANSWER, sampled),
        elicitation_callback=elicitation,
        message_handler=on_message,
    ) as client:

        async def revision() -> None:
            expected = "2026-07-28" if modern else "2025-11-25"
            expect(client.session.protocol_version == expected, client.session.protocol_version)

        async def tools() -> None:
            names = [t.name for t in await all_tools(client)]
            for upstream in upstreams:
                expect(any(n.startswith(f"{upstream}__") for n in names), f"no tool of {upstream}: {names}")
            expect(all(n.split("__", 1)[0] in upstreams for n in names), f"a tool of no upstream: {names}")
            for name in ("everything__echo", "memory__read_graph", "files__read_text_file",
                         "time__get_current_time", "git__git_status"):
                expect(name in names, f"{name} not listed: {names}")

        async def everything() -> None:
            result = await client.call_tool("everything__echo", {"message": f"hi ({mode})"})
            expect(text_of(result) == f"Echo: hi ({mode})", text_of(result))

        async def memory() -> None:
            entity = f"gateway-{mode}"
            created = await client.call_tool(
                "memory__create_entities",
                {"entities": [{"name": entity, "entityType": "test", "observations": ["through the gateway"]}]},
            )
            expect(not created.is_error, text_of(created))
            graph = await client.call_tool("memory__read_graph", {})
            names = [e["name"] for e in json.loads(text_of(graph))["entities"]]
            expect(entity in names, f"read_graph: {text_of(graph)}")

        async def files() -> None:
            path = f"{args.files}/python-{mode}.txt"
            written = await client.call_tool("files__write_file", {"path": path, "content": f"written at {mode}"})
            expect(not written.is_error, text_of(written))
            read = await client.call_tool("files__read_text_file", {"path": path})
            expect(text_of(read) == f"written at {mode}", text_of(read))
            read = await client.call_tool("files__read_text_file", {"path": f"{args.files}/hello.txt"})
            expect(text_of(read).strip() == "served through the gateway", text_of(read))

        async def time() -> None:
            result = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
            expect(not result.is_error, text_of(result))
            expect(json.loads(text_of(result))["timezone"] == "UTC", text_of(result))

        async def git() -> None:
            result = await client.call_tool("git__git_status", {"repo_path": args.repo})
            expect(not result.is_error, text_of(result))
            expect("On branch main" in text_of(result) and "untracked.txt" in text_of(result), text_of(result))

        async def tls() -> None:
            result = await client.call_tool("tls__echo", {"message": "over TLS"})
            expect(text_of(result) == "Echo: over TLS", text_of(result))
            read = await client.read_resource("tls+test://static-text")
            expect(read.contents[0].text == "This is the content of the static text resource.", f"{read}")

        async def resources() -> None:
            listed = (await client.list_resources()).resources
            ours = [r for r in listed if str(r.uri).startswith("everything+")]
            expect(ours, f"no resource of everything: {[str(r.uri) for r in listed]}")
            read = await client.read_resource(str(ours[0].uri))
            expect(len(read.contents) == 1 and str(read.contents[0].uri) == str(ours[0].uri), f"{read}")
            filled = await client.read_resource("everything+demo://resource/dynamic/text/7")
            expect(filled.contents[0].text.startswith("Resource 7: "), filled.contents[0].text)

        async def prompts() -> None:
            names = [p.name for p in (await client.list_prompts()).prompts]
            expect("everything__completable-prompt" in names, f"prompts {names}")
            got = await client.get_prompt("everything__completable-prompt", {"department": "Sales", "name": "Eve"})
            text = got.messages[0].content.text
            expect(text == "Please promote Eve to the head of the Sales team.", text)

        async def completion() -> None:
            prompt = types.PromptReference(type="ref/prompt", name="everything__completable-prompt")
            got = await client.complete(prompt, {"name": "department", "value": "S"})
            expect(got.completion.values == ["Sales", "Support"], f"department: {got.completion}")
            got = await client.complete(prompt, {"name": "name", "value": ""}, {"department": "Engineering"})
            expect(got.completion.values == ["Alice", "Bob", "Charlie"], f"name: {got.completion}")
            template = types.ResourceTemplateReference(
                type="ref/resource", uri="everything+demo://resource/dynamic/text/{resourceId}"
            )
            got = await client.complete(template, {"name": "resourceId", "value": "12"})
            expect(got.completion.values == ["12"], f"resourceId: {got.completion}")

        async def sampling() -> None:
            result = await client.call_tool("everything__trigger-sampling-request", {"prompt": "hello", "maxTokens": 20})
            expect(len(sampled) == 1, f"sampling requests: {len(sampled)}")
            expect(ANSWER in text_of(result), f"the tool saw {text_of(result)!r}")

        async def elicit() -> None:
            result = await client.call_tool("everything__trigger-elicitation-request", {})
            expect(len(elicited) == 1, f"elicitation requests: {len(elicited)}")
            expect(elicited[0].requested_schema.get("required") == ["name"], f"{elicited[0]}")
            for line in ("- Name: Ada Lovelace", "- Email: ada@example.com", "- Favorite Integer: 7"):
                expect(line in text_of(result), f"{line!r} not in {text_of(result)!r}")

        async def subscribe() -> None:
            listed = [str(r.uri) for r in (await client.list_resources()).resources]
            ours = [u for u in listed if u.startswith("everything+")]
            expect(ours, f"no resource of everything: {listed}")
            uri = ours[0]

            async def toggle(expected: str) -> None:
                said = text_of(await client.call_tool("everything__toggle-subscriber-updates", {}))
                expect(said.startswith(expected), f"toggle said {said!r}")

            if modern:
                # 2026-07-28: a listen stream with the resource in its filter.
                async with client.listen(resource_subscriptions=[uri]) as events:
                    await toggle("Started")
                    try:
                        with anyio.fail_after(8):
                            async for event in events:
                                if uri in str(event):
                                    break
                    finally:
                        await toggle("Stopped")
            else:
                await client.subscribe_resource(uri)
                await toggle("Started")
                try:
                    with anyio.fail_after(8):
                        while not any(
                            isinstance(n, types.ResourceUpdatedNotification) and str(n.params.uri) == uri
                            for n in notifications
                        ):
                            await anyio.sleep(0.02)
                finally:
                    await toggle("Stopped")

        async def cancel() -> None:
            # A 3 s call with a progress every 0.5 s, cancelled at its first progress: it gives
            # no result and the session still answers. The gateway's audit log (checked by the
            # script) shows it cancelled.
            first = anyio.Event()
            finished: list[Any] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                first.set()

            async def call() -> None:
                finished.append(
                    await client.call_tool(
                        "everything__trigger-long-running-operation",
                        {"duration": 3, "steps": 6},
                        progress_callback=on_progress,
                    )
                )

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                with anyio.fail_after(10):
                    await first.wait()
                tg.cancel_scope.cancel()
            expect(not finished, "the cancelled call got its result")
            result = await client.call_tool("everything__echo", {"message": "after cancel"})
            expect(text_of(result) == "Echo: after cancel", text_of(result))

        checks = [revision, tools, everything, memory, files, time, git] + ([tls] if args.tls else [])
        checks += [resources, prompts, completion, sampling, elicit, subscribe, cancel]
        return await run_checks([(check.__name__, check) for check in checks])


def main() -> int:
    warnings.simplefilter("ignore")
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("--tls", action="store_true")
    parser.add_argument("--files")
    parser.add_argument("--repo")
    parser.add_argument("--size")
    parser.add_argument("url")
    args = parser.parse_args()
    if args.size:
        return anyio.run(size, args.size, args.url)
    passed, failed = anyio.run(run, args)
    print(f"python-gateway-all ({args.mode}): {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
