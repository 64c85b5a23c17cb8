#!/usr/bin/env bash
# Interop: the Python SDK client drives an edit session (find, read lines, dry-run edit, edit,
# read back, move, tree) against `tinymcp --write-root` on a temporary project, over stdio and
# Streamable HTTP, then a client offering roots (--client-roots), and one offering roots to a server given no folder. Needs the pinned venv (scripts/deps.sh) and a built binary (release by default).
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-target/release/tinymcp}"
exec .cache/venv/bin/python tests/interop/python_edits.py -- "$binary"
