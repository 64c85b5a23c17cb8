"""One client session against a server of the side-by-side (examples/side_by_side.rs, or
scripts/side-by-side/rmcp.rs built by scripts/side-by-side.sh), with the official Python SDK
client (PyPI `mcp`) over stdio: initialize, tools/list, each tool (structured output and a tool
error, progress, elicitation accepted and declined), prompts/list and prompts/get,
resources/templates/list and resources/read of a template URI.

Prints what the client saw, reduced to its substance (no server name, no wording of descriptions
beyond what both servers write the same), as one JSON document with sorted keys, so the script
compares the two servers' sessions with `cmp`. Exits non-zero if a call fails outright.

Usage: session.py <server binary> <a text file of a few KiB to read>
"""

import asyncio
import json
import sys
from typing import Any

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def schema(s: dict[str, Any] | None) -> Any:
    """A schema's substance: its type, properties with their types, and what is required."""
    if s is None:
        return None
    properties = {name: p.get("type") for name, p in s.get("properties", {}).items()}
    return {"type": s.get("type"), "properties": properties, "required": sorted(s.get("required", []))}


def result(r: types.CallToolResult) -> dict[str, Any]:
    text = "".join(b.text for b in r.content if b.type == "text")
    return {"isError": bool(r.is_error), "text": text, "structured": r.structured_content}


async def elicit(_context: Any, params: Any) -> types.ElicitResult:
    # "Really deploy?" is accepted, anything else declined; the form asked is recorded.
    asked.append({"message": params.message, "schema": schema(params.requested_schema)})
    if params.message == "Really deploy?":
        return types.ElicitResult(action="accept", content={"confirm": True})
    return types.ElicitResult(action="decline")


asked: list[Any] = []


async def main(server: str, path: str) -> None:
    seen: dict[str, Any] = {}
    async with stdio_client(StdioServerParameters(command=server)) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicit) as session:
            init = await session.initialize()
            caps = init.capabilities
            seen["capabilities"] = sorted(k for k in ("tools", "prompts", "resources") if getattr(caps, k))
            tools = (await session.list_tools()).tools
            seen["tools"] = {
                t.name: {"description": t.description, "input": schema(t.input_schema), "output": schema(t.output_schema)}
                for t in tools
            }
            seen["divide"] = result(await session.call_tool("divide", {"dividend": 3, "divisor": 4}))
            seen["divide by zero"] = result(await session.call_tool("divide", {"dividend": 1, "divisor": 0}))
            progress: list[tuple[float, float | None]] = []

            async def on_progress(done: float, total: float | None, _message: str | None) -> None:
                progress.append((done, total))

            read_file = result(await session.call_tool("read_file", {"path": path}, progress_callback=on_progress))
            with open(path, encoding="utf-8") as f:
                read_file["text is the file"] = read_file.pop("text") == f.read()
            # Notifications may still be in flight behind the answer; the last one names the whole file.
            for _ in range(100):
                if progress and progress[-1][0] == progress[-1][1]:
                    break
                await asyncio.sleep(0.01)
            read_file["progress"] = [list(p) for p in progress]
            seen["read_file"] = read_file
            seen["read_file missing"] = {"isError": result(await session.call_tool("read_file", {"path": path + ".none"}))["isError"]}
            seen["confirm deploy"] = result(await session.call_tool("confirm", {"action": "deploy"}))
            seen["confirm delete"] = result(await session.call_tool("confirm", {"action": "delete"}))
            seen["elicitations"] = asked
            prompts = (await session.list_prompts()).prompts
            seen["prompts"] = {
                p.name: {"description": p.description, "arguments": sorted((a.name, bool(a.required)) for a in p.arguments or [])}
                for p in prompts
            }
            got = await session.get_prompt("review", {"code": "x = 1", "focus": "names"})
            seen["review"] = [{"role": m.role, "text": m.content.text} for m in got.messages]
            templates = (await session.list_resource_templates()).resource_templates
            seen["templates"] = [{"uriTemplate": t.uri_template, "name": t.name, "mimeType": t.mime_type} for t in templates]
            contents = (await session.read_resource("note:///groceries")).contents
            seen["note"] = [{"uri": str(c.uri), "mimeType": c.mime_type, "text": c.text} for c in contents]
    print(json.dumps(seen, sort_keys=True, indent=1))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
