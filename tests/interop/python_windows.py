"""Windows, under Wine: the official Python SDK client launches `wine tinymcp.exe --root FOLDER`
over stdio and checks real answers: initialize, the tools, the resources (their URIs spelled as
Windows spells them, `file:///Z:/...`), reading a file as a tool and as a resource, searching,
and the sandbox refusing what Windows reads as something else than a plain name in the folder
(`..`, drives, UNC and `\\\\?\\` prefixes, devices such as `CON`, streams such as `a.txt:x`,
trailing dots and spaces, 8.3 short names, a link out of the folder); with no folder given, a
client's root spelled `file:///Z:/...` served; Streamable HTTP on loopback; `proxy` in front of a child tinymcp.exe; `install --host claude-desktop`; a manifest's command tools (arguments through CreateProcess's quoting intact, a timed-out tree ended by its job object, a `.bat` refused); then `--write-root`: the edit tools, and the escapes refused to them too. WINEPREFIX and WINEDEBUG come from the environment (scripts/wine.sh).
Usage: python_windows.py -- path/to/tinymcp.exe"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


# Roots are what a 2025-11-25 session uses; the SDK warns that 2026-07-28 deprecates them.
warnings.filterwarnings("ignore", message="The roots capability is deprecated")


def check(condition, message):
    if not condition:
        raise SystemExit(f"FAIL: {message}")


def windows_path(path: str) -> str:
    """The Windows spelling of a host path in the prefix (`Z:\\tmp\\...`)."""
    out = subprocess.run(["winepath", "-w", path], capture_output=True, text=True, check=True, env=wine_env())
    return out.stdout.strip()


def wine_env() -> dict:
    env = {k: os.environ[k] for k in ("PATH", "HOME", "USER", "WINEPREFIX", "WINEDEBUG", "WINEARCH") if k in os.environ}
    env["DISPLAY"] = ""
    return env


# Each path a client may spell that Windows reads as something else than a plain name under the
# root, with a word the refusal must contain.
ESCAPES = [
    ("../outside.txt", "leaves"),
    ("src/../../outside.txt", "leaves"),
    ("C:\\Windows\\win.ini", "backslash"),
    ("C:/Windows/win.ini", "drive"),
    ("c:", "drive"),
    ("\\\\?\\C:\\Windows\\win.ini", "backslash"),
    ("\\\\.\\CON", "backslash"),
    ("//server/share/x", "absolute"),
    ("/windows/win.ini", "absolute"),
    ("src\\main.rs", "backslash"),
    ("CON", "device"),
    ("con.txt", "device"),
    ("src/NUL", "device"),
    ("AUX.md", "device"),
    ("COM1", "device"),
    ("lpt1.log", "device"),
    ("notes.txt:secret", "stream"),
    ("notes.txt::$DATA", "stream"),
    ("notes.txt.", "dot or a space"),
    ("notes.txt ", "dot or a space"),
    ("PROGRA~1", "short name"),
    ("NOTES~1.TXT", "short name"),
    (".env", "hidden"),
]


async def main(exe: str) -> None:
    with tempfile.TemporaryDirectory(prefix="tinymcp-wine-") as tmp:
        root = os.path.realpath(tmp)
        os.makedirs(os.path.join(root, "src"))
        with open(os.path.join(root, "src", "main.rs"), "w") as f:
            f.write("fn main() {\n    println!(\"Hello\");\n}\n")
        with open(os.path.join(root, "notes.txt"), "w") as f:
            f.write("hello from windows\n")
        with open(os.path.join(root, ".env"), "w") as f:
            f.write("SECRET=1\n")
        with open(os.path.join(os.path.dirname(root), "tinymcp-wine-outside.txt"), "w") as f:
            f.write("outside\n")
        # A link out of the folder, made on the host (Wine shows it as the folder it leads to).
        os.symlink("/etc", os.path.join(root, "out"))
        win_root = windows_path(root)
        params = StdioServerParameters(command="wine", args=[exe, "--root", win_root], env=wine_env())
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "tinymcp", f"initialize {init}")
            print(f"initialize: {init.server_info.name} {init.server_info.version}, protocol {init.protocol_version}")

            tools = [t.name for t in (await session.list_tools()).tools]
            check({"list_directory", "read_file", "search_files", "find_files"} <= set(tools), f"tools {tools}")
            check("write_file" not in tools, f"read-only, yet {tools}")
            print(f"tools/list: {', '.join(tools)}")

            resources = (await session.list_resources()).resources
            names = sorted(r.name for r in resources)
            check(names == ["notes.txt", "src/main.rs"], f"resources {names}")
            notes = next(r for r in resources if r.name == "notes.txt")
            drive = win_root[0]
            expected = f"file:///{drive}:/" + root.lstrip("/") + "/notes.txt"
            check(str(notes.uri) == expected, f"uri {notes.uri}, not {expected}")
            print(f"resources/list: {names}, e.g. {notes.uri}")
            read = await session.read_resource(str(notes.uri))
            check(read.contents[0].text == "hello from windows\n", f"read {read}")
            print("resources/read: the file's text")

            result = await session.call_tool("read_file", {"path": "src/main.rs"})
            check(not result.is_error and "println!" in result.content[0].text, f"read_file {result}")
            listed = await session.call_tool("list_directory", {"path": "."})
            text = listed.content[0].text
            check(not listed.is_error and "notes.txt" in text and "src" in text and ".env" not in text, f"list {text}")
            found = await session.call_tool("search_files", {"query": "HELLO"})
            text = found.content[0].text
            check("notes.txt:1: hello from windows" in text and "src/main.rs:2:" in text, f"search {text}")
            print("tools/call read_file, list_directory, search_files: answered")

            for spelled, why in ESCAPES:
                result = await session.call_tool("read_file", {"path": spelled})
                said = result.content[0].text
                check(result.is_error and "refused" in said and why in said, f"{spelled!r}: {said}")
            print(f"tools/call read_file: {len(ESCAPES)} escapes refused, each with its reason")

            result = await session.call_tool("read_file", {"path": "out/hostname"})
            said = result.content[0].text
            check(result.is_error and ("outside" in said or "link" in said), f"a link out: {said}")
            print(f"a link out of the folder: {said}")

            for suffix in ["notes.txt:secret", "CON", "..%2fx", "%2e%2e/x"]:
                base = str(notes.uri).rsplit("/", 1)[0]
                try:
                    await session.read_resource(f"{base}/{suffix}")
                except Exception as e:  # the SDK raises McpError for an error answer
                    continue
                raise SystemExit(f"FAIL: resources/read {suffix} answered")
            print("resources/read of a stream, a device and encoded escapes: refused")

        # No folder given: a client offering a root as Windows spells it (`file:///Z:/...`) is
        # served that root.
        root_uri = f"file:///{drive}:/" + root.lstrip("/") + "/src"

        async def list_roots(_context):
            return types.ListRootsResult(roots=[types.Root(uri=root_uri, name="src")])

        params = StdioServerParameters(command="wine", args=[exe, "--no-watch"], env=wine_env(), cwd=root)
        async with stdio_client(params) as (read, write), \
                ClientSession(read, write, list_roots_callback=list_roots) as session:
            await session.initialize()
            inside = await session.call_tool("read_file", {"path": "main.rs"})
            check(not inside.is_error and "println!" in inside.content[0].text, f"client root: {inside}")
            cwd = await session.call_tool("read_file", {"path": "notes.txt"})
            check(cwd.is_error, f"client root: the working directory was served {cwd}")
            print(f"a client's root {root_uri}: served (main.rs read), the working directory not")

        # Streamable HTTP on loopback: the same folder, read through the SDK's HTTP client.
        from mcp.client.streamable_http import streamable_http_client
        server = subprocess.Popen(["wine", exe, "--root", win_root, "--no-watch", "--http", "127.0.0.1:0"],
                                  env=wine_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        try:
            url = None
            for line in server.stderr:
                found = re.search(r"listening on (http://\S+/mcp)", line)
                if found:
                    url = found.group(1)
                    break
            check(url is not None, "the HTTP server never said where it listens")
            async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                result = await session.call_tool("read_file", {"path": "notes.txt"})
                check(not result.is_error and result.content[0].text == "hello from windows\n", f"http: {result}")
                refused = await session.call_tool("read_file", {"path": "CON"})
                check(refused.is_error and "device" in refused.content[0].text, f"http: CON {refused}")
            print(f"Streamable HTTP at {url}: read_file answered, CON refused")
        finally:
            server.terminate()
            server.wait(timeout=30)

        # The proxy: Streamable HTTP in front of a child tinymcp.exe over stdio, ended with its
        # session (its stdin closed, then its job object terminated by the proxy).
        win_exe = windows_path(exe)
        proxy = subprocess.Popen(["wine", exe, "proxy", "--http", "127.0.0.1:0", "--", win_exe, "--root", win_root],
                                 env=wine_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
        child = lambda: [l for l in subprocess.run(["pgrep", "-af", "tinymcp.exe"], capture_output=True,
                                                    text=True).stdout.splitlines() if win_root in l and " proxy " not in l]
        try:
            url = None
            for line in proxy.stderr:
                found = re.search(r"listening on (http://\S+/mcp)", line)
                if found:
                    url = found.group(1)
                    break
            check(url is not None, "the proxy never said where it listens")
            async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                result = await session.call_tool("read_file", {"path": "notes.txt"})
                check(not result.is_error and result.content[0].text == "hello from windows\n", f"proxy: {result}")
                check(len(child()) == 1, f"proxy: the child {child()}")
            deadline = time.monotonic() + 30
            while child() and time.monotonic() < deadline:
                time.sleep(0.05)
            check(not child(), f"proxy: the child outlived its session: {child()}")
            print("proxy --http -- tinymcp.exe --root: read through the child; the child ended with its session")
        finally:
            proxy.terminate()
            proxy.wait(timeout=30)

        # `tinymcp install --host claude-desktop` writes %APPDATA%\Claude\claude_desktop_config.json
        # (the prefix's; Wine sets APPDATA itself), the root spelled plainly (Z:\..., not the
        # verbatim \\?\Z:\... of canonicalize).
        said = subprocess.run(["wine", "cmd", "/c", "echo %APPDATA%"], capture_output=True, text=True,
                              env=wine_env(), stdin=subprocess.DEVNULL, timeout=120)
        appdata = subprocess.run(["winepath", "-u", said.stdout.strip()], capture_output=True, text=True,
                                 env=wine_env(), check=True).stdout.strip()
        config = os.path.join(appdata, "Claude", "claude_desktop_config.json")
        if os.path.exists(config):
            os.remove(config)
        done = subprocess.run(["wine", exe, "install", "--host", "claude-desktop", "--root", win_root],
                              capture_output=True, text=True, env=wine_env(), stdin=subprocess.DEVNULL, timeout=120)
        check(done.returncode == 0, f"install: {done}")
        with open(config) as f:
            entry = json.load(f)["mcpServers"]["tinymcp"]
        os.remove(config)
        check(entry["command"].lower().endswith("tinymcp.exe") and entry["args"] == ["--root", win_root], f"install: {entry}")
        print(f"install --host claude-desktop: {said.stdout.strip()}\\Claude\\claude_desktop_config.json holds {json.dumps(entry)}")

        await command_tools(exe, tmp)

        await writes(exe, root)
    print("windows (wine): ok")


async def writes(exe: str, root: str) -> None:
    """`--write-root` under Windows: list, read, search and find, then the edit tools (a new file,
    an edit, a folder, a move), each answer checked on the host's disk; every escape of
    ESCAPES refused by `write_file` too (nothing written), and writes through a link out of the
    folder refused."""
    params = StdioServerParameters(command="wine", args=[exe, "--write-root", windows_path(root), "--no-watch"],
                                   env=wine_env())
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        check({"write_file", "edit_file", "create_directory", "move_file"} <= tools, f"--write tools {tools}")
        listed = await session.call_tool("list_directory", {"path": "."})
        check(not listed.is_error and "notes.txt" in listed.content[0].text, f"list {listed}")
        found = await session.call_tool("find_files", {"pattern": "**/*.rs"})
        check(not found.is_error and "src/main.rs" in found.content[0].text, f"find {found}")

        made = await session.call_tool("write_file", {"path": "src/new.txt", "content": "one\ntwo\n"})
        check(not made.is_error, f"write_file {made}")
        with open(os.path.join(root, "src", "new.txt")) as f:
            check(f.read() == "one\ntwo\n", "write_file: the file on disk")
        edited = await session.call_tool("edit_file", {"path": "src/main.rs",
                                                       "edits": [{"oldText": "Hello", "newText": "Hello, Windows"}]})
        check(not edited.is_error, f"edit_file {edited}")
        with open(os.path.join(root, "src", "main.rs")) as f:
            check('println!("Hello, Windows");' in f.read(), "edit_file: the file on disk")
        again = await session.call_tool("read_file", {"path": "src/main.rs"})
        check("Hello, Windows" in again.content[0].text, f"read after edit {again}")
        searched = await session.call_tool("search_files", {"query": "Hello, Windows"})
        check("src/main.rs:2:" in searched.content[0].text, f"search after edit {searched}")
        folder = await session.call_tool("create_directory", {"path": "docs/deep"})
        check(not folder.is_error and os.path.isdir(os.path.join(root, "docs", "deep")), f"create_directory {folder}")
        moved = await session.call_tool("move_file", {"source": "src/new.txt", "destination": "docs/deep/new.txt"})
        check(not moved.is_error and os.path.isfile(os.path.join(root, "docs", "deep", "new.txt"))
              and not os.path.exists(os.path.join(root, "src", "new.txt")), f"move_file {moved}")
        print("--write-root: list, find, write_file, edit_file (read and searched back), create_directory, move_file")

        before = sorted(os.listdir(root)), sorted(os.listdir(os.path.dirname(root)))
        for spelled, why in ESCAPES + [("out/tinymcp-written", "link")]:
            result = await session.call_tool("write_file", {"path": spelled, "content": "x"})
            said = result.content[0].text
            check(result.is_error and why in said, f"write_file {spelled!r}: {said}")
        after = sorted(os.listdir(root)), sorted(os.listdir(os.path.dirname(root)))
        check(before == after and not os.path.exists("/etc/tinymcp-written"), f"an escape wrote: {before} {after}")
        print(f"write_file: {len(ESCAPES) + 1} escapes refused with their reasons, nothing written")


# Arguments CreateProcess's quoting must carry intact: spaces, quotes, backslashes before a
# quote and at the end (the classic injection: `C:\dir\" & calc`), cmd's metacharacters, an
# empty one.
HARD_ARGUMENTS = ["a b", 'say "hi"', "C:\\dir\\", 'x\\"y', "\\\\server\\share\\", "& calc", "%PATH%", "", "tab\there"]


async def command_tools(exe: str, tmp: str) -> None:
    """A manifest's command tools under Windows: argv reaches a program intact (a helper built
    here with mingw-w64 prints what its C runtime split), a timed-out command's whole tree (it
    started a child) ended by the job object, and a `.bat` program refused at start."""
    helper = os.path.join(tmp, "argv.exe")
    subprocess.run(["x86_64-w64-mingw32-gcc", "-O2", "-o", helper, "scripts/wine/argv.c"], check=True)
    mark = f"tinymcp-tree-{os.getpid()}"
    manifest = os.path.join(tmp, "manifest.json")
    with open(manifest, "w") as f:
        json.dump({"tools": [
            {"name": "echo_args", "command": [windows_path(helper), "--", "{{words}}"],
             "inputSchema": {"type": "object", "properties": {"words": {"type": "array", "items": {"type": "string"}}}}},
            {"name": "tree", "command": [windows_path(helper), "tree", mark], "timeoutMs": 3000},
        ]}, f)
    marked = lambda: [l for l in subprocess.run(["pgrep", "-af", mark], capture_output=True,
                                                 text=True).stdout.splitlines() if "pgrep" not in l]
    params = StdioServerParameters(command="wine", args=[exe, "--manifest", windows_path(manifest), "--no-watch"],
                                   env=wine_env())
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("echo_args", {"words": HARD_ARGUMENTS})
        check(not result.is_error, f"echo_args: {result}")
        said = result.content[0].text
        expected = "".join(f"[{a}]\n" for a in ["--"] + HARD_ARGUMENTS)
        check(said.replace("\r\n", "\n") == expected, f"echo_args: {said!r}, not {expected!r}")
        print(f"command tool: {len(HARD_ARGUMENTS)} arguments with spaces, quotes, backslashes reached the program intact")

        result = await session.call_tool("tree", {})
        check(result.is_error and "timed out" in result.content[0].text.lower(), f"tree: {result}")
        # The command and the child it started end with the call (the job object), while the
        # server still runs; Wine takes a moment to reap them.
        deadline = time.monotonic() + 30
        while marked() and time.monotonic() < deadline:
            time.sleep(0.05)
        check(not marked(), f"tree: left running after its timeout: {marked()}")
        print("command tool timed out: the command and the child it started ended with the call (job object)")

    batch = os.path.join(tmp, "run.bat")
    with open(batch, "w") as f:
        f.write("@echo %*\r\n")
    for spelled in [windows_path(batch), windows_path(batch).upper() + ". "]:
        with open(manifest, "w") as f:
            json.dump({"tools": [{"name": "bat", "command": [spelled, "{{x}}"],
                                  "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}]}, f)
        done = subprocess.run(["wine", exe, "--manifest", windows_path(manifest)], capture_output=True, text=True,
                              env=wine_env(), stdin=subprocess.DEVNULL, timeout=120)
        check(done.returncode != 0 and "batch script" in done.stderr and "cmd.exe" in done.stderr, f"bat: {done}")
    print("a .bat program: refused at start (" + next(l for l in done.stderr.splitlines() if "batch" in l).strip() + ")")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--":
        args = args[1:]
    anyio.run(main, args[0] if args else "target/x86_64-pc-windows-gnu/debug/tinymcp.exe")
