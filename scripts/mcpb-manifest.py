"""Prints the MCP bundle manifest (manifest_version 0.4) of the bundle for one CPU architecture,
ARCH (x86_64 or aarch64), holding the binaries of the given PLATFORMs (Node's process.platform
names), each started as `BINARY --root <the folder the user picks>`:
  linux   server/tinymcp         the static musl build for ARCH (the default command)
  darwin  server/tinymcp-darwin  the universal macOS build (both architectures: a host picks the
                                 entry by OS alone, so one Mac entry must run on Intel and Apple silicon)
  win32   server/tinymcp.exe     the Windows build for ARCH
The default command is the Linux one; `platform_overrides` (keyed by OS, as the MCPB spec says)
name the others, and `compatibility.platforms` lists exactly the platforms present.
Usage: mcpb-manifest.py VERSION ARCH PLATFORM...
"""
import json
import sys

version, arch, platforms = sys.argv[1], sys.argv[2], sys.argv[3:]
ENTRY = {"linux": "server/tinymcp", "darwin": "server/tinymcp-darwin", "win32": "server/tinymcp.exe"}
NAME = {"linux": f"static Linux {arch}", "darwin": "universal macOS", "win32": f"Windows {arch}"}
if not platforms or any(p not in ENTRY for p in platforms):
    sys.exit(f"mcpb-manifest: PLATFORMs are among {', '.join(ENTRY)}, got {platforms}")
default = "linux" if "linux" in platforms else platforms[0]
args = ["--root", "${user_config.root}"]
mcp_config = {"command": "${__dirname}/" + ENTRY[default], "args": args}
overrides = {p: {"command": "${__dirname}/" + ENTRY[p], "args": args} for p in platforms if p != default}
if overrides:
    mcp_config["platform_overrides"] = overrides
held = ", ".join(NAME[p] for p in platforms)
manifest = {
    "manifest_version": "0.4",
    "name": "tinymcp",
    "display_name": "tinymcp",
    "version": version,
    "description": "A folder served to the model, read-only and sandboxed: browse, read and search its files.",
    "long_description": (
        "tinymcp serves one folder over MCP: every file is a resource, and the model gets four read-only "
        "tools (list_directory, read_file, search_files, file_info) and a summarize_file prompt. "
        f"This bundle holds the binaries for {held}."
    ),
    "author": {"name": "tinymcp contributors"},
    "license": "MIT OR Apache-2.0",
    "keywords": ["files", "folder", "search"],
    "server": {
        "type": "binary",
        "entry_point": ENTRY[default],
        "mcp_config": mcp_config,
    },
    "tools": [
        {"name": "list_directory", "description": "List a folder's entries, with kind and size"},
        {"name": "read_file", "description": "Read a file, text or binary, a window at a time"},
        {"name": "search_files", "description": "Search the files' text for a substring"},
        {"name": "file_info", "description": "A file's kind, size, modification time and MIME type"},
    ],
    "prompts": [{"name": "summarize_file", "description": "Summarize a file", "arguments": ["path"], "text": "Summarize ${arguments.path}"}],
    "user_config": {
        "root": {
            "type": "directory",
            "title": "Folder to serve",
            "description": "The folder the model may browse, read and search (read-only).",
            "required": True,
        }
    },
    "compatibility": {"platforms": platforms},
}
json.dump(manifest, sys.stdout, indent=2)
print()
