#!/usr/bin/env bash
# `tinymcp proxy` between revisions, refereed by clients and a suite nobody here wrote:
# - a child pinned to the handshake revisions (`--revisions ..2025-11-25`): the conformance
#   suite's 2026-07-28 requirement set (what cannot be translated is listed, with the reason, in
#   scripts/proxy-revisions-expected.yml: 35 of the 37 scored scenarios pass) and the Python
#   SDK client at 2026-07-28 (all but the tasks extension, which is not translated);
# - a child pinned to 2026-07-28 (`--revisions 2026-07-28..`): the suite's 2025-11-25
#   requirement set and the Python and TypeScript SDK clients at 2025-11-25;
# - `--shared`, one child for every session: the Python and TypeScript SDK clients.
# Needs target/release/tinymcp and scripts/deps.sh's .cache.
set -euo pipefail
cd "$(dirname "$0")/.."

tinymcp=${TINYMCP_BIN:-target/release/tinymcp}
node=.cache/npm/node_modules/.bin/node
python=.cache/venv/bin/python
conformance=.cache/npm/node_modules/.bin/conformance
logs=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$logs"' EXIT

. scripts/proxy-launch.sh

# suite NAME ARGS...: one conformance run against the proxy on `port`; fails on any failure
# the run does not expect.
suite() {
  local name=$1
  shift
  if "$node" "$conformance" server --url "http://127.0.0.1:$port/mcp" "$@" >"$logs/$name.txt" 2>&1; then rc=0; else rc=$?; fi
  echo "conformance through the proxy, $name: $(grep -E '^Total: ' "$logs/$name.txt" | tail -1) (exit $rc)"
  if [ "$rc" -ne 0 ]; then
    sed 's/\x1b\[[0-9;]*m//g' "$logs/$name.txt" | grep -E '^✗|Unexpected|Stale|  ✗|  ✓' | head -40
    return 1
  fi
}

proxy -- "$PWD/$tinymcp" --everything --skills examples/skills --revisions ..2025-11-25
suite "2026-07-28 requirements, child at 2025-11-25" --requirements 2026-07-28 \
  --expected-failures scripts/proxy-revisions-expected.yml
for mode in 2026-07-28 auto; do
  "$python" tests/interop/python_modern.py --mode "$mode" --without-tasks --transport http "http://127.0.0.1:$port/mcp"
done

proxy -- "$PWD/$tinymcp" --everything --revisions 2026-07-28..
suite "2025-11-25 requirements, child at 2026-07-28" --requirements 2025-11-25
"$python" tests/interop/python_client.py --transport http "http://127.0.0.1:$port/mcp"
"$node" tests/interop/ts_client.mjs --transport http "http://127.0.0.1:$port/mcp"

proxy --shared -- "$PWD/$tinymcp" --everything
"$python" tests/interop/python_client.py --transport http "http://127.0.0.1:$port/mcp"
"$node" tests/interop/ts_client.mjs --transport http "http://127.0.0.1:$port/mcp"
