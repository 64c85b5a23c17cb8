"""Interop: the official Python SDK client drives an edit session against `tinymcp --write` on a
temporary copy of a small project, over stdio and Streamable HTTP: find by name, read lines, a
dry-run edit, the edit, read back, move, tree; asserting on the real answers and the files.
Then a client offering roots (`--client-roots`): served its root only, following a change; and
with no folder given, a client offering roots: served its roots as the folders (stdio and HTTP,
where a second session without roots gets the working directory and none of the first one's).
Usage: python_edits.py -- path/to/tinymcp"""

import os
import re
import subprocess
import sys
import tempfile
import warnings

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


# Roots are what a 2025-11-25 session uses; the SDK warns that 2026-07-28 deprecates them.
warnings.filterwarnings("ignore", message="The roots capability is deprecated")


def check(condition, message):
    if not condition:
        raise SystemExit(f"FAIL: {message}")


def text(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def make_project(root: str) -> None:
    files = {
        "Cargo.toml": "[package]\nname = \"demo\"\n",
        "src/main.rs": "fn main() {\n    let greeting = \"hello\";\n    println!(\"{greeting}\");\n}\n",
        "src/util/mod.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
        "notes.txt": "".join(f"note {n}\n" for n in range(1, 21)),
        "target/debug/built.rs": "// generated\n",
        ".gitignore": "target/\n",
    }
    for rel, content in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)


async def session_steps(session: ClientSession, root: str, transport: str) -> None:
    await session.initialize()
    tools = {t.name: t for t in (await session.list_tools()).tools}
    for name in ["directory_tree", "find_files", "read_multiple_files", "write_file", "edit_file", "move_file"]:
        check(name in tools, f"{transport}: no {name} in {sorted(tools)}")
    check(tools["find_files"].annotations.read_only_hint is True, f"{transport}: find_files annotations")
    check(tools["edit_file"].annotations.read_only_hint is False, f"{transport}: edit_file annotations")

    # Find by name: the ignored target/ is left out.
    found = await session.call_tool("find_files", {"pattern": "**/*.rs"})
    check(found.structured_content["paths"] == ["src/main.rs", "src/util/mod.rs"], f"{transport}: find {found}")

    # Read lines from the start and from the end.
    head = await session.call_tool("read_file", {"path": "src/main.rs", "head": 2})
    check(head.content[0].text == "fn main() {\n    let greeting = \"hello\";\n", f"{transport}: head {head}")
    tail = await session.call_tool("read_file", {"path": "notes.txt", "tail": 2})
    check(tail.content[0].text == "note 19\nnote 20\n", f"{transport}: tail {tail}")

    # A dry run shows the diff and changes nothing.
    edits = [{"oldText": "\"hello\"", "newText": "\"hello, world\""}]
    dry = await session.call_tool("edit_file", {"path": "src/main.rs", "edits": edits, "dryRun": True})
    diff = text(dry)
    check(not dry.is_error and "-    let greeting = \"hello\";" in diff and "+    let greeting = \"hello, world\";" in diff,
          f"{transport}: dry run {diff}")
    with open(os.path.join(root, "src/main.rs")) as f:
        check("\"hello\";" in f.read(), f"{transport}: the dry run changed the file")

    # The edit, then read back through the server and from the disk.
    done = await session.call_tool("edit_file", {"path": "src/main.rs", "edits": edits})
    check(not done.is_error and "+    let greeting" in text(done), f"{transport}: edit {done}")
    back = await session.call_tool("read_file", {"path": "src/main.rs"})
    check("\"hello, world\"" in back.content[0].text, f"{transport}: read back {back}")
    with open(os.path.join(root, "src/main.rs")) as f:
        check("\"hello, world\"" in f.read(), f"{transport}: the edit is not on disk")
    twice = await session.call_tool("edit_file", {"path": "src/main.rs", "edits": [{"oldText": "nowhere", "newText": "x"}]})
    check(twice.is_error, f"{transport}: an edit whose text is absent should fail: {twice}")

    # Write, move, read several, and the tree shows the result.
    wrote = await session.call_tool("write_file", {"path": "src/util/extra.rs", "content": "// extra\n"})
    check(not wrote.is_error, f"{transport}: write {wrote}")
    moved = await session.call_tool("move_file", {"source": "notes.txt", "destination": "src/notes.txt"})
    check(not moved.is_error and not os.path.exists(os.path.join(root, "notes.txt")), f"{transport}: move {moved}")
    several = await session.call_tool("read_multiple_files", {"paths": ["src/util/extra.rs", "notes.txt"]})
    joined = text(several)
    check(not several.is_error and "// extra" in joined and "error: " in joined, f"{transport}: multiple {joined}")
    tree = await session.call_tool("directory_tree", {})
    drawn = text(tree)
    check(re.search(r"\n    notes\.txt\n", drawn) and "extra.rs" in drawn and "target" not in drawn,
          f"{transport}: tree {drawn}")

    # Nothing escapes: a path out of the folder is refused, by the edit tools too.
    for tool, args in [("write_file", {"path": "../escaped.txt", "content": "x"}),
                       ("move_file", {"source": "Cargo.toml", "destination": "../Cargo.toml"}),
                       ("directory_tree", {"path": ".."}), ("find_files", {"pattern": "*", "path": "/etc"})]:
        refused = await session.call_tool(tool, args)
        check(refused.is_error and "refused" in text(refused), f"{transport}: {tool} {args}: {refused}")
    check(not os.path.exists(os.path.join(os.path.dirname(root), "escaped.txt")), f"{transport}: wrote outside")


async def over_stdio(binary: str) -> None:
    with tempfile.TemporaryDirectory(prefix="tinymcp-edits-") as tmp:
        root = os.path.join(os.path.realpath(tmp), "project")
        make_project(root)
        params = StdioServerParameters(command=binary, args=["--write-root", root, "--no-watch"])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session_steps(session, root, "stdio")


async def with_client_roots(binary: str) -> None:
    """A client offering one root, inside the served folder: served that root and nothing else."""
    with tempfile.TemporaryDirectory(prefix="tinymcp-edits-") as tmp:
        root = os.path.join(os.path.realpath(tmp), "project")
        make_project(root)
        roots = [f"file://{root}/src"]

        async def list_roots(_context):
            return types.ListRootsResult(roots=[types.Root(uri=uri, name="src") for uri in roots])

        params = StdioServerParameters(command=binary, args=["--write-root", root, "--no-watch", "--client-roots"])
        async with stdio_client(params) as (read, write), \
                ClientSession(read, write, list_roots_callback=list_roots) as session:
            await session.initialize()
            inside = await session.call_tool("read_file", {"path": "src/main.rs"})
            check(not inside.is_error and "fn main" in text(inside), f"roots: inside {inside}")
            beside = await session.call_tool("read_file", {"path": "Cargo.toml"})
            check(beside.is_error and "not under the client's roots" in text(beside), f"roots: beside {beside}")
            listed = sorted(r.name for r in (await session.list_resources()).resources)
            check(listed == ["src/main.rs", "src/util/mod.rs"], f"roots: resources {listed}")
            # The roots change: the next call follows them.
            roots[0] = f"file://{root}"
            await session.send_roots_list_changed()
            now = await session.call_tool("read_file", {"path": "Cargo.toml"})
            check(not now.is_error, f"roots: after list_changed {now}")


async def roots_as_folders(binary: str) -> None:
    """No folder given: a client offering roots is served its roots, not the working directory."""
    with tempfile.TemporaryDirectory(prefix="tinymcp-edits-") as tmp:
        root = os.path.join(os.path.realpath(tmp), "project")
        make_project(root)
        here = os.path.join(os.path.realpath(tmp), "here")
        os.makedirs(here)
        with open(os.path.join(here, "here.txt"), "w") as f:
            f.write("here\n")
        roots = [f"file://{root}/src"]

        async def list_roots(_context):
            return types.ListRootsResult(roots=[types.Root(uri=uri, name="r") for uri in roots])

        params = StdioServerParameters(command=os.path.abspath(binary), args=["--no-watch", "--write"], cwd=here)
        async with stdio_client(params) as (read, write), \
                ClientSession(read, write, list_roots_callback=list_roots) as session:
            await session.initialize()
            inside = await session.call_tool("read_file", {"path": "main.rs"})
            check(not inside.is_error and "fn main" in text(inside), f"roots as folders: inside {inside}")
            cwd = await session.call_tool("read_file", {"path": "here.txt"})
            check(cwd.is_error, f"roots as folders: the working directory was served {cwd}")
            several = await session.call_tool("read_multiple_files", {"paths": ["main.rs", "nope.rs"]})
            files = (several.structured_content or {}).get("files", [])
            check([sorted(f) for f in files] == [["content", "path"], ["error", "path"]],
                  f"roots as folders: read_multiple_files {several}")
            # The roots change: the next call serves the new ones.
            roots[0] = f"file://{root}"
            await session.send_roots_list_changed()
            now = await session.call_tool("read_file", {"path": "Cargo.toml"})
            check(not now.is_error, f"roots as folders: after list_changed {now}")
        # Over Streamable HTTP: a session with roots is served them, one without the working directory.
        from mcp.client.streamable_http import streamable_http_client
        server = subprocess.Popen([os.path.abspath(binary), "--no-watch", "--http", "127.0.0.1:0"], cwd=here,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            url = next((m.group(1) for m in (re.search(r"listening on (http://\S+/mcp)", l) for l in server.stderr) if m), None)
            check(url is not None, "the HTTP server never said where it listens")
            async with streamable_http_client(url) as streams, \
                    ClientSession(streams[0], streams[1], list_roots_callback=list_roots) as session:
                await session.initialize()
                inside = await session.call_tool("read_file", {"path": "Cargo.toml"})
                check(not inside.is_error, f"roots as folders over http: {inside}")
                async with streamable_http_client(url) as other, ClientSession(other[0], other[1]) as plain:
                    await plain.initialize()
                    cwd = await plain.call_tool("read_file", {"path": "here.txt"})
                    check(not cwd.is_error and "here" in text(cwd), f"roots as folders: a session without roots {cwd}")
                    leaked = await plain.call_tool("read_file", {"path": "Cargo.toml"})
                    check(leaked.is_error, f"roots as folders: another session's roots leaked {leaked}")
        finally:
            server.terminate()
            server.wait(timeout=10)


async def over_http(binary: str) -> None:
    from mcp.client.streamable_http import streamable_http_client

    with tempfile.TemporaryDirectory(prefix="tinymcp-edits-") as tmp:
        root = os.path.join(os.path.realpath(tmp), "project")
        make_project(root)
        server = subprocess.Popen([binary, "--write-root", root, "--no-watch", "--http", "127.0.0.1:0"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            url = None
            for line in server.stderr:
                found = re.search(r"listening on (http://\S+/mcp)", line)
                if found:
                    url = found.group(1)
                    break
            check(url is not None, "the HTTP server never said where it listens")
            async with streamable_http_client(url) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session_steps(session, root, "http")
        finally:
            server.terminate()
            server.wait(timeout=10)


async def main(binary: str) -> None:
    with anyio.fail_after(60):
        await over_stdio(binary)
        await over_http(binary)
        await with_client_roots(binary)
        await roots_as_folders(binary)
    print("python_edits: OK")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--":
        args = args[1:]
    anyio.run(main, args[0] if args else "target/release/tinymcp")
