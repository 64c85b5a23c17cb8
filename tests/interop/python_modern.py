"""Interop: the official Python SDK client (PyPI `mcp`) at revision 2026-07-28 against
`tinymcp --everything`: no handshake, each request carries its `_meta`; sampling, elicitation and
roots come back as input-required results the SDK answers and retries; a listen stream; a task
of the tasks extension (SEP-2663) driven to completion; a skill (SEP-2640) listed and read.

The SDK (2.3.0) has no tasks or skills API of its own. The tasks extension is a `ClientExtension`
(the SDK's opt-in extension interface): it declares `io.modelcontextprotocol/tasks`, claims the
`resultType: "task"` answer of `tools/call` and resolves it by polling `tasks/get`, sent through
the session's low-level `send_request` (which stamps each request's `_meta` and `Mcp-Name`).
`skills/list` and `skills/get` go through `send_request` too; a skill's files are read with the
ordinary `read_resource`. The server must serve `--skills examples/skills`.

Usage:
    python_modern.py --mode 2026-07-28|auto --transport stdio -- <server command and args>
    python_modern.py --mode 2026-07-28|auto --transport http  <url of /mcp>

Every check asserts on what the SDK parsed from the server's real answers. The last line is
`python-modern (<mode>, <transport>): N passed, M failed`; the exit status is non-zero when anything failed.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.client import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.stdio import StdioServerParameters
from pydantic import ConfigDict

from harness import run_checks, sampling_answer

ROOT_URI = "file:///tmp/tinymcp-interop-root"


def text_of(result: Any) -> str:
    return result.content[0].text


TASKS = "io.modelcontextprotocol/tasks"


class CreatedTask(types.Result):
    """The flat `CreateTaskResult` of the tasks extension."""

    result_type: Literal["task"]
    task_id: str
    status: str
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class DetailedTask(types.Result):
    """What `tasks/get` answers: the task, its result or error inlined."""

    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    status_message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class TaskIdParams(types.RequestParams):
    task_id: str


class GetTask(types.Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams
    name_param = "taskId"


class SkillsList(types.Request[types.PaginatedRequestParams, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams


class SkillUriParams(types.RequestParams):
    uri: str


class SkillsGet(types.Request[SkillUriParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: SkillUriParams


class AnyResult(types.Result):
    model_config = ConfigDict(extra="allow")


class Tasks(ClientExtension):
    """The tasks extension, client side: a task answer is polled until it ends."""

    identifier = TASKS

    def __init__(self) -> None:
        self.seen: list[str] = []

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self.resolve)]

    async def resolve(self, created: CreatedTask, ctx: ClaimContext) -> types.CallToolResult:
        self.seen.append(created.status)
        interval = min((created.poll_interval_ms or 1000) / 1000, 0.2)
        while True:
            got = await ctx.session.send_request(GetTask(params=TaskIdParams(task_id=created.task_id)), DetailedTask)
            assert got.task_id == created.task_id, got
            if got.status != self.seen[-1]:
                self.seen.append(got.status)
            if got.status == "completed":
                return types.CallToolResult.model_validate(got.result)
            if got.status in ("failed", "cancelled"):
                raise RuntimeError(f"task {got.task_id} {got.status}: {got.error}")
            await anyio.sleep(interval)


async def run(mode: str, server: Any, with_tasks: bool = True) -> tuple[int, int]:
    logs: list[Any] = []
    elicited: list[Any] = []
    sampled: list[Any] = []

    sampling = sampling_answer("Hello there!", sampled)

    async def elicitation(context: Any, params: Any):
        elicited.append(params)
        return types.ElicitResult(action="accept", content={"name": "Alice", "color": "blue", "context": "ctx"})

    async def roots(context: Any):
        return types.ListRootsResult(roots=[types.Root(uri=ROOT_URI, name="interop")])

    async def logging(params: Any) -> None:
        logs.append(params)

    tasks = Tasks()

    async with Client(
        server,
        mode=mode,
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
        logging_callback=logging,
        log_level="info",
        extensions=[tasks],
    ) as client:


        async def revision() -> None:
            assert client.session.protocol_version == "2026-07-28", client.session.protocol_version

        async def tools() -> None:
            listed = await client.list_tools()
            names = [t.name for t in listed.tools]
            assert "echo" in names and "test_input_required_result_elicitation" in names, names
            assert text_of(await client.call_tool("echo", {"message": "hi"})) == "Echo: hi"

        async def elicit() -> None:
            result = await client.call_tool("test_input_required_result_elicitation", {})
            assert text_of(result) == "Hello, Alice!", result
            assert elicited, "the elicitation callback ran"

        async def sample() -> None:
            result = await client.call_tool("test_input_required_result_sampling", {})
            assert text_of(result) == "Sampling result: Hello there!", result
            assert sampled

        async def list_roots() -> None:
            result = await client.call_tool("test_input_required_result_list_roots", {})
            assert text_of(result) == "Found 1 root(s)", result

        async def several() -> None:
            result = await client.call_tool("test_input_required_result_multiple_inputs", {})
            assert text_of(result) == "Name: Alice; Greeting: Hello there!; Roots: 1", result
            result = await client.call_tool("test_input_required_result_multi_round", {})
            assert text_of(result) == "Multi-round complete for Alice who likes blue", result

        async def prompt() -> None:
            result = await client.get_prompt("test_input_required_result_prompt", {})
            assert result.messages[0].content.text == "Prompt with context: ctx", result
            listed = await client.list_prompts()
            assert any(p.name == "test_simple_prompt" for p in listed.prompts)

        async def resources() -> None:
            read = await client.read_resource("test://static-text")
            assert read.contents[0].text == "This is the content of the static text resource."
            templated = await client.read_resource("test://template/123/data")
            assert "123" in templated.contents[0].text

        async def missing_capability() -> None:
            result = await client.call_tool("test_missing_capability", {})
            assert text_of(result) == "Success", result

        async def logging_level() -> None:
            result = await client.call_tool("test_logging_tool", {})
            assert text_of(result) == "Logging evaluated"
            with anyio.fail_after(5):
                while not logs:
                    await anyio.sleep(0.01)
            assert logs[0].data == "Diagnostic trace logging activated", logs

        async def listen() -> None:
            async with client.listen(tools_list_changed=True) as sub:
                await client.call_tool("test_trigger_tool_change", {})
                with anyio.fail_after(5):
                    async for event in sub:
                        assert "tool" in type(event).__name__.lower() or "tool" in str(event).lower(), event
                        break

        async def task() -> None:
            tasks.seen.clear()
            result = await client.call_tool("slow_compute", {"seconds": 1, "label": "interop"})
            assert text_of(result) == "interop finished after 1000 ms", result
            assert tasks.seen[0] == "working" and tasks.seen[-1] == "completed", tasks.seen

        async def task_after_input() -> None:
            tasks.seen.clear()
            result = await client.call_tool("test_tool_with_task", {})
            assert "Alice" in text_of(result), result
            assert tasks.seen and tasks.seen[-1] == "completed", tasks.seen

        async def skill() -> None:
            listed = await client.session.send_request(SkillsList(params=types.PaginatedRequestParams()), AnyResult)
            skills = (listed.model_extra or {})["skills"]
            uris = [s["uri"] for s in skills]
            assert "skill://code-review/SKILL.md" in uris, uris
            review = next(s for s in skills if s["uri"] == "skill://code-review/SKILL.md")
            assert review["frontmatter"]["name"] == "code-review", review
            got = await client.session.send_request(SkillsGet(params=SkillUriParams(uri=review["uri"])), AnyResult)
            assert (got.model_extra or {})["skill"]["uri"] == review["uri"], got
            read = await client.read_resource(review["uri"])
            assert read.contents[0].text.startswith("---\nname: code-review\n"), read
            for file in review["resources"]:
                assert file["digest"].startswith("sha256:"), file
                assert (await client.read_resource(file["uri"])).contents, file

        checks = [
                ("revision is 2026-07-28", revision),
                ("tools/list and tools/call", tools),
                ("elicitation through an input-required result", elicit),
                ("sampling through an input-required result", sample),
                ("roots through an input-required result", list_roots),
                ("several inputs in one round, and several rounds", several),
                ("prompts/get with an input-required result", prompt),
                ("resources/read", resources),
                ("a capability the client declared", missing_capability),
                ("log messages at the _meta level", logging_level),
                ("subscriptions/listen", listen),
                ("a task of the tasks extension, polled to completion", task),
                ("input first, then a task", task_after_input),
                ("skills/list, skills/get and a skill's files", skill),
        ]
        if not with_tasks:
            checks = [(name, check) for name, check in checks if "task" not in name]
        return await run_checks(checks, timeout=20)


def main() -> int:
    warnings.simplefilter("ignore")
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="2026-07-28")
    parser.add_argument("--transport", choices=["stdio", "http"], required=True)
    # Through `tinymcp proxy` to a child that speaks only the handshake revisions: the tasks
    # extension has no counterpart there, and discover does not declare it.
    parser.add_argument("--without-tasks", action="store_true")
    parser.add_argument("target", nargs="+")
    args = parser.parse_args()
    if args.transport == "stdio":
        server: Any = StdioServerParameters(command=args.target[0], args=args.target[1:])
    else:
        server = args.target[0]
    passed, failed = anyio.run(run, args.mode, server, not args.without_tasks)
    print(f"python-modern ({args.mode}, {args.transport}): {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
