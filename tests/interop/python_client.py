"""Interop: the official Python SDK client (PyPI `mcp`) drives every feature of `tinymcp --everything`.

Usage:
    python_client.py --transport stdio -- <server command and args>
    python_client.py --transport http  <url of /mcp>
    python_client.py --transport sse   <url of /sse>

Every check asserts on what the SDK parsed from the server's real answers. The last line is
`python-interop (<transport>): N passed, M failed`; the exit status is non-zero when anything failed.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any, Awaitable, Callable

import anyio
import mcp_types as types
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.shared.exceptions import MCPError

from harness import connect, expect, run_checks, text_of

ROOT_URI = "file:///tmp/tinymcp-interop-root"


class Observed:
    """What the server sent outside of responses, collected by the callbacks."""

    def __init__(self) -> None:
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.notifications: list[Any] = []
        self.sampling: list[types.CreateMessageRequestParams] = []
        self.elicitations: list[Any] = []
        self.roots_asked = 0

    def methods(self) -> list[str]:
        return [getattr(n, "method", type(n).__name__) for n in self.notifications]

    async def wait_for(self, method: str, timeout: float = 5.0) -> None:
        with anyio.fail_after(timeout):
            while method not in self.methods():
                await anyio.sleep(0.01)


def callbacks(seen: Observed) -> dict[str, Any]:
    async def sampling(context: ClientRequestContext, params: types.CreateMessageRequestParams):
        seen.sampling.append(params)
        if getattr(params, "tools", None):
            return types.CreateMessageResultWithTools(
                role="assistant",
                content=[types.TextContent(type="text", text="It is sunny.")],
                model="interop-model",
                stop_reason="endTurn",
            )
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="four"),
            model="interop-model",
            stop_reason="endTurn",
        )

    async def elicitation(context: ClientRequestContext, params: Any):
        seen.elicitations.append(params)
        if getattr(params, "mode", None) == "url":
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})

    async def roots(context: ClientRequestContext):
        seen.roots_asked += 1
        return types.ListRootsResult(roots=[types.Root(uri=ROOT_URI, name="interop")])

    async def logging(params: types.LoggingMessageNotificationParams) -> None:
        seen.logs.append(params)

    async def messages(message: Any) -> None:
        if not isinstance(message, Exception):
            seen.notifications.append(message)

    return dict(
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
        logging_callback=logging,
        message_handler=messages,
        # Declares sampling.tools, so the server may offer the model tools (2025-11-25).
        sampling_capabilities=types.SamplingCapability(tools=types.SamplingToolsCapability()),
    )


async def expect_error(call: Awaitable[Any], code: int) -> MCPError:
    try:
        await call
    except MCPError as e:
        expect(e.error.code == code, f"expected error {code}, got {e.error.code}: {e.error.message}")
        return e
    raise AssertionError(f"expected error {code}, got a result")


async def list_all(fetch: Callable[..., Awaitable[Any]], field: str) -> list[Any]:
    """Follows nextCursor to the end, so pagination is exercised whatever the page size."""
    items: list[Any] = []
    cursor = None
    for _ in range(1000):
        page = await fetch(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            return items
    raise AssertionError("pagination never ended")


def checks(session: ClientSession, seen: Observed, init: types.InitializeResult) -> list[tuple[str, Callable]]:
    async def lifecycle():
        expect(init.protocol_version == "2025-11-25", f"negotiated {init.protocol_version}")
        expect(init.server_info.name == "tinymcp", f"serverInfo.name {init.server_info.name}")
        caps = init.capabilities
        for name in ("tools", "resources", "prompts", "logging", "completions"):
            expect(getattr(caps, name) is not None, f"capability {name} missing")
        expect(bool(caps.resources.subscribe), "resources.subscribe not advertised")
        await session.send_ping()

    async def tools_list():
        tools = {t.name: t for t in await list_all(session.list_tools, "tools")}
        for name in ("echo", "test_simple_text", "test_image_content", "test_sampling", "add"):
            expect(name in tools, f"tool {name} missing from tools/list")
        expect(tools["add"].output_schema is not None, "add has no outputSchema")
        expect(tools["add"].annotations.read_only_hint is True, "add readOnlyHint")

    async def echo():
        result = await session.call_tool("echo", {"message": "hello; $(rm -rf) 'quotes' \u00e9"})
        expect(not result.is_error, "echo isError")
        expect(text_of(result) == "Echo: hello; $(rm -rf) 'quotes' \u00e9", f"echo said {text_of(result)!r}")

    async def stream_closed_early():
        # Over HTTP the server ends the POST stream before answering (SEP-1699); the client must
        # poll back with Last-Event-ID for the answer. Over stdio the call is plain.
        result = await session.call_tool("test_reconnection", {})
        expect(text_of(result).startswith("Reconnection test completed"), f"test_reconnection said {text_of(result)!r}")

    async def content_types():
        image = await session.call_tool("test_image_content", {})
        expect(image.content[0].type == "image" and image.content[0].mime_type == "image/png", "image content")
        audio = await session.call_tool("test_audio_content", {})
        expect(audio.content[0].type == "audio", "audio content")
        embedded = await session.call_tool("test_embedded_resource", {})
        expect(embedded.content[0].type == "resource", "embedded resource content")
        expect(str(embedded.content[0].resource.uri) == "test://embedded-resource", "embedded uri")
        mixed = await session.call_tool("test_multiple_content_types", {})
        expect([c.type for c in mixed.content] == ["text", "image", "resource"], "mixed content order")
        link = await session.call_tool("test_resource_link", {})
        expect(link.content[1].type == "resource_link", "resource_link content")
        expect(link.content[0].annotations.priority == 0.5, "annotations on content")

    async def tool_errors():
        failed = await session.call_tool("test_error_handling", {})
        expect(failed.is_error is True, "test_error_handling is not isError")
        bad = await session.call_tool("add", {"a": "one", "b": 2})
        expect(bad.is_error is True and "/a" in text_of(bad), f"bad arguments: {text_of(bad)!r}")
        await expect_error(session.call_tool("no_such_tool", {}), -32602)

    async def structured():
        result = await session.call_tool("add", {"a": 2, "b": 40})
        expect(result.structured_content == {"sum": 42}, f"structuredContent {result.structured_content}")
        expect('"sum"' in text_of(result), "structured content also as text")

    async def logging():
        await session.set_logging_level("debug")
        before = len(seen.logs)
        await session.call_tool("test_tool_with_logging", {})
        got = [entry.data for entry in seen.logs[before:]]
        expect(got == ["Tool execution started", "Tool processing data", "Tool execution completed"], f"logs {got}")
        await session.set_logging_level("error")
        before = len(seen.logs)
        await session.call_tool("test_tool_with_logging", {})
        expect(len(seen.logs) == before, "info logs sent although the level is error")
        await session.set_logging_level("info")

    async def progress():
        steps: list[tuple[float, float | None]] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            steps.append((value, total))

        await session.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        expect([s[0] for s in steps] == [0, 50, 100], f"progress {steps}")
        expect(all(total == 100 for _, total in steps), "progress total")

    async def sampling():
        result = await session.call_tool("test_sampling", {"prompt": "2+2?"})
        expect(text_of(result) == "LLM response: four", f"sampling said {text_of(result)!r}")
        expect(seen.sampling[-1].max_tokens == 100, "sampling maxTokens")
        with_tools = await session.call_tool("test_sampling_with_tools", {})
        expect(not with_tools.is_error and "sunny" in text_of(with_tools), f"sampling with tools {text_of(with_tools)!r}")
        expect(seen.sampling[-1].tools[0].name == "get_weather", "tools offered in sampling")

    async def elicitation():
        result = await session.call_tool("test_elicitation", {"message": "Who are you?"})
        expect("action=accept" in text_of(result) and "ada@example.com" in text_of(result), text_of(result))
        url = await session.call_tool("test_url_elicitation", {})
        expect("action=accept" in text_of(url), text_of(url))
        expect(getattr(seen.elicitations[-1], "url", None) == "https://example.com/authorize", "url elicitation")
        await seen.wait_for("notifications/elicitation/complete")

    async def roots():
        result = await session.call_tool("test_roots", {})
        expect(text_of(result) == f"Roots: {ROOT_URI}", f"roots said {text_of(result)!r}")
        await session.send_roots_list_changed()
        await session.send_ping()

    async def resources():
        listed = {str(r.uri): r for r in await list_all(session.list_resources, "resources")}
        expect("test://static-text" in listed and "test://static-binary" in listed, f"resources {list(listed)}")
        text = await session.read_resource("test://static-text")
        expect(text.contents[0].text == "This is the content of the static text resource.", "static text")
        blob = await session.read_resource("test://static-binary")
        expect(blob.contents[0].mime_type == "image/png" and len(blob.contents[0].blob) > 10, "static binary")
        templates = await list_all(session.list_resource_templates, "resource_templates")
        expect(any(t.uri_template == "test://template/{id}/data" for t in templates), "template listed")
        filled = await session.read_resource("test://template/42/data")
        expect('"id":"42"' in filled.contents[0].text.replace(" ", ""), filled.contents[0].text)
        error = await expect_error(session.read_resource("test://nope"), -32002)
        expect("test://nope" in str(error.error.data), f"-32002 data {error.error.data}")

    async def subscriptions():
        await session.subscribe_resource("test://watched-resource")
        await session.call_tool("test_trigger_resource_update", {})
        await seen.wait_for("notifications/resources/updated")
        updated = [n for n in seen.notifications if getattr(n, "method", "") == "notifications/resources/updated"]
        expect(str(updated[-1].params.uri) == "test://watched-resource", "updated uri")
        await session.unsubscribe_resource("test://watched-resource")
        count = len(updated)
        await session.call_tool("test_trigger_resource_update", {})
        await session.send_ping()
        await anyio.sleep(0.1)
        after = [n for n in seen.notifications if getattr(n, "method", "") == "notifications/resources/updated"]
        expect(len(after) == count, "update sent after unsubscribe")

    async def prompts():
        listed = {p.name: p for p in await list_all(session.list_prompts, "prompts")}
        expect("test_prompt_with_arguments" in listed, f"prompts {list(listed)}")
        simple = await session.get_prompt("test_simple_prompt")
        expect(simple.messages[0].content.text == "This is a simple prompt for testing.", "simple prompt")
        args = await session.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
        expect(args.messages[0].content.text == "Prompt with arguments: arg1='a', arg2='b'", "prompt arguments")
        embedded = await session.get_prompt("test_prompt_with_embedded_resource", {"resourceUri": "test://x"})
        expect(embedded.messages[0].content.type == "resource", "prompt embedded resource")
        image = await session.get_prompt("test_prompt_with_image")
        expect(image.messages[0].content.type == "image", "prompt image")
        await expect_error(session.get_prompt("test_prompt_with_arguments", {"arg1": "a"}), -32602)
        await expect_error(session.get_prompt("no_such_prompt"), -32602)

    async def completion():
        prompt = await session.complete(
            types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"), {"name": "arg1", "value": "par"}
        )
        expect(prompt.completion.values == ["paris", "park"], f"prompt completion {prompt.completion.values}")
        template = await session.complete(
            types.ResourceTemplateReference(type="ref/resource", uri="test://template/{id}/data"),
            {"name": "id", "value": "1"},
        )
        expect(template.completion.values == ["1", "123"], f"template completion {template.completion.values}")

    async def list_changed():
        # The trigger toggles the tool, and the server may be shared with an earlier run.
        async def listed() -> bool:
            return any(t.name == "test_dynamic_tool" for t in await list_all(session.list_tools, "tools"))

        before = await listed()
        await session.call_tool("test_trigger_tool_change", {})
        await seen.wait_for("notifications/tools/list_changed")
        expect(await listed() != before, "the tool list did not change after list_changed")
        await session.call_tool("test_trigger_prompt_change", {})
        await seen.wait_for("notifications/prompts/list_changed")

    async def cancellation():
        with anyio.move_on_after(0.3):
            await session.call_tool("test_slow", {"ms": 10000})
            raise AssertionError("test_slow finished although it was cancelled")
        # The server must stay responsive, and the cancelled request must not disturb the next ones.
        await session.send_ping()
        result = await session.call_tool("echo", {"message": "after cancel"})
        expect(text_of(result) == "Echo: after cancel", "echo after cancellation")

    async def concurrency():
        results: dict[int, str] = {}

        async def one(i: int) -> None:
            results[i] = text_of(await session.call_tool("echo", {"message": str(i)}))

        async with anyio.create_task_group() as group:
            group.start_soon(session.call_tool, "test_slow", {"ms": 300})
            for i in range(50):
                group.start_soon(one, i)
        expect(all(results[i] == f"Echo: {i}" for i in range(50)), "concurrent echoes")

    return [
        (name, fn)
        for name, fn in [
            ("lifecycle and ping", lifecycle),
            ("tools/list", tools_list),
            ("echo", echo),
            ("content of every type", content_types),
            ("tool errors", tool_errors),
            ("structured output", structured),
            ("logging and setLevel", logging),
            ("progress", progress),
            ("sampling", sampling),
            ("elicitation", elicitation),
            ("roots", roots),
            ("resources", resources),
            ("subscriptions", subscriptions),
            ("prompts", prompts),
            ("completion", completion),
            ("list_changed", list_changed),
            ("cancellation", cancellation),
            ("stream closed early", stream_closed_early),
            ("concurrency", concurrency),
        ]
    ]


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["stdio", "http", "sse"], default="stdio")
    parser.add_argument("target", nargs="+")
    args = parser.parse_args()
    # The SDK warns that logging, roots and subscriptions leave the protocol in 2026-07-28; this
    # client speaks 2025-11-25, where they are current.
    warnings.filterwarnings("ignore", message=".*deprecated as of 2026-07-28.*")
    warnings.filterwarnings("ignore", message=".*removed as of 2026-07-28.*")

    seen = Observed()
    async with connect(args.transport, args.target) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=20, **callbacks(seen)) as session:
            init = await session.initialize()
            passed, failed = await run_checks(checks(session, seen, init))
    print(f"python-interop ({args.transport}): {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
