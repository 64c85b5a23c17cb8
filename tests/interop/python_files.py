"""Interop: the official Python SDK client drives the files provider and a manifest over stdio,
on a real temporary folder. Usage: python_files.py -- path/to/tinymcp"""

import json
import os
import sys
import tempfile

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


def check(condition, message):
    if not condition:
        raise SystemExit(f"FAIL: {message}")


async def main(binary: str) -> None:
    with tempfile.TemporaryDirectory(prefix="tinymcp-interop-") as tmp:
        root = os.path.realpath(tmp)
        os.makedirs(os.path.join(root, "src"))
        with open(os.path.join(root, "src", "main.rs"), "w") as f:
            f.write("fn main() {\n    println!(\"Hello\");\n}\n")
        with open(os.path.join(root, "notes one.md"), "w") as f:
            f.write("# Notes\nhello world\n")
        manifest = {
            "tools": [{"name": "show", "command": ["printf", "%s", "{{x}}"],
                       "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}],
        }
        with open(os.path.join(root, "manifest.json"), "w") as f:
            json.dump(manifest, f)
        params = StdioServerParameters(command=binary, args=["--root", root, "--manifest", os.path.join(root, "manifest.json")])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = [t.name for t in (await session.list_tools()).tools]
            check(tools == ["show", "list_directory", "read_file", "search_files", "file_info", "directory_tree", "find_files", "read_multiple_files"], f"tools {tools}")

            resources = (await session.list_resources()).resources
            names = sorted(r.name for r in resources)
            check(names == ["manifest.json", "notes one.md", "src/main.rs"], f"resources {names}")
            notes = next(r for r in resources if r.name == "notes one.md")
            check(str(notes.uri).endswith("/notes%20one.md"), f"uri {notes.uri}")
            read = await session.read_resource(str(notes.uri))
            check(read.contents[0].text == "# Notes\nhello world\n", f"read {read}")

            result = await session.call_tool("read_file", {"path": "src/main.rs"})
            check(not result.is_error and "println!" in result.content[0].text, f"read_file {result}")
            result = await session.call_tool("search_files", {"query": "HELLO"})
            text = result.content[0].text
            check("notes one.md:2: hello world" in text and "src/main.rs:2:" in text, f"search {text}")
            for escape in ["../etc/passwd", "/etc/passwd", "%2e%2e/x", "src%2f..%2f..", "src//main.rs", "..\\x"]:
                result = await session.call_tool("read_file", {"path": escape})
                check(result.is_error and "refused" in result.content[0].text, f"escape {escape}: {result}")

            template = (await session.list_resource_templates()).resource_templates[0].uri_template
            done = await session.complete(types.ResourceTemplateReference(uri=template), {"name": "path", "value": "sr"})
            check(done.completion.values == ["src/"], f"complete {done}")
            prompt = await session.get_prompt("summarize_file", {"path": "src/main.rs"})
            check(prompt.messages[1].content.type == "resource", f"prompt {prompt}")

            evil = "; rm -rf / $(id) `id` \"'\n--help"
            result = await session.call_tool("show", {"x": evil})
            check(result.content[0].text == evil, f"show {result}")
    print("python_files: OK")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--":
        args = args[1:]
    anyio.run(main, args[0] if args else os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "tinymcp"))
