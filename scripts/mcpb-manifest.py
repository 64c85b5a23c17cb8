"""Prints the MCP bundle manifest (manifest_version 0.4) for one static binary: the Linux
build for ARCH, started as `server/tinymcp --root <the folder the user picks>`.
Usage: mcpb-manifest.py VERSION ARCH (x86_64 or aarch64)
"""
import json
import sys

version, arch = sys.argv[1], sys.argv[2]
manifest = {
    "manifest_version": "0.4",
    "name": "tinymcp",
    "display_name": "tinymcp",
    "version": version,
    "description": "A folder served to the model, read-only and sandboxed: browse, read and search its files.",
    "long_description": (
        "tinymcp serves one folder over MCP: every file is a resource, and the model gets four read-only "
        "tools (list_directory, read_file, search_files, file_info) and a summarize_file prompt. "
        f"This bundle holds the static Linux {arch} binary."
    ),
    "author": {"name": "tinymcp contributors"},
    "license": "MIT OR Apache-2.0",
    "keywords": ["files", "folder", "search"],
    "server": {
        "type": "binary",
        "entry_point": "server/tinymcp",
        "mcp_config": {
            "command": "${__dirname}/server/tinymcp",
            "args": ["--root", "${user_config.root}"],
        },
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
    "compatibility": {"platforms": ["linux"]},
}
json.dump(manifest, sys.stdout, indent=2)
print()
