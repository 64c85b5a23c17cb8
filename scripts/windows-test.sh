#!/usr/bin/env bash
# The Windows build, tested here under Wine: builds tinymcp.exe for x86_64-pc-windows-gnu
# (Debian's mingw-w64 links it), makes a Wine prefix of our own (scripts/wine.sh), and has the
# official Python SDK client serve a folder through `wine tinymcp.exe --root FOLDER` over stdio
# (tests/interop/python_windows.py: initialize, tools, resources, reads, search, the sandbox's
# Windows refusals, command tools, the edit tools with --write-root). Skipped, with one line, without wine, mingw-w64, the
# Rust target or the pinned venv (scripts/deps.sh). What Wine cannot show: docs/testing.md.
# Usage: scripts/windows-test.sh [path/to/tinymcp.exe]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/wine.sh
wine_ready
[ -x .cache/venv/bin/python ] || skip "windows (wine)" "the Python SDK venv is missing (scripts/deps.sh makes it)"
exe="${1:-}"
unit_tests=
if [ -z "$exe" ]; then
  # Lints for Windows: the libraries (core and HTTP), the binary with and without `oauth`, and the binary's unit
  # tests (tests/it is Unix-only: it runs the Linux binary, makes FIFOs and symlinks).
  cargo clippy --quiet --target x86_64-pc-windows-gnu -p tinymcp --all-targets -- -D warnings
  cargo clippy --quiet --target x86_64-pc-windows-gnu -p tinymcp-http --all-targets -- -D warnings
  cargo clippy --quiet --target x86_64-pc-windows-gnu -p tinymcp-cli --bins -- -D warnings
  cargo clippy --quiet --target x86_64-pc-windows-gnu -p tinymcp-cli --bins --features oauth -- -D warnings
  cargo clippy --quiet --target x86_64-pc-windows-gnu -p tinymcp-cli --bin tinymcp --profile test -- -D warnings
  cargo build --quiet --target x86_64-pc-windows-gnu -p tinymcp-cli
  exe=target/x86_64-pc-windows-gnu/debug/tinymcp.exe
  # The binary's unit tests too (the sandbox's among them), built for Windows.
  unit_tests=$(cargo test --quiet --target x86_64-pc-windows-gnu -p tinymcp-cli --bin tinymcp --no-run --message-format=json |
    python3 -c 'import json, sys
for m in map(json.loads, sys.stdin):
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])')
fi
wine_prefix
# The first start of a prefix's wineserver is slow; later ones reuse it until the end.
trap 'wineserver -k 2>/dev/null || true' EXIT
if [ -n "$unit_tests" ]; then
  rc=0
  out=$(wine "$unit_tests" --quiet 2>&1) || rc=$?
  grep -E '^test result|FAILED|panicked' <<<"$out" || true
  [ "$rc" = 0 ] || { echo "the binary's unit tests failed under Wine (exit $rc)" >&2; exit 1; }
fi
.cache/venv/bin/python tests/interop/python_windows.py -- "$(realpath "$exe")"
