#!/usr/bin/env bash
# `tinymcp proxy` between revisions, refereed by clients and a suite nobody here wrote:
# - a child pinned to the handshake revisions (`--revisions ..2025-11-25`): the conformance
#   suite's 2026-07-28 requirement set (what cannot be translated is listed, with the reason, in
#   scripts/proxy-revisions-expected.yml: 35 of the 37 scored scenarios pass) and the Python
#   SDK client at 2026-07-28 (all but the tasks extension, which is not translated);
# - a child pinned to 2026-07-28 (`--revisions 2026-07-28..`): the suite's 2025-11-25
#   requirement set and the Python and TypeScript SDK clients at 2025-11-25;
# - `--shared`, one child for every session: the Python and TypeScript SDK clients.
# Runs the release binary (scripts/lib.sh: release_binary) with scripts/deps.sh's .cache.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/lib.sh
tinymcp=$(release_binary)
node=.cache/npm/node_modules/.bin/node
python=.cache/venv/bin/python
. scripts/proxy-launch.sh

# suite NAME ARGS...: one conformance run against the proxy on `port`; fails on any failure
# the run does not expect.
suite() {
  local name=$1
  shift
  conformance_run "conformance through the proxy, $name" "$logs/$name.txt" "http://127.0.0.1:$port/mcp" "$@"
}

proxy -- "$tinymcp" --everything --skills examples/skills --revisions ..2025-11-25
suite "2026-07-28 requirements, child at 2025-11-25" --requirements 2026-07-28 \
  --expected-failures scripts/proxy-revisions-expected.yml
for mode in 2026-07-28 auto; do
  "$python" tests/interop/python_modern.py --mode "$mode" --without-tasks --transport http "http://127.0.0.1:$port/mcp"
done

proxy -- "$tinymcp" --everything --revisions 2026-07-28..
suite "2025-11-25 requirements, child at 2026-07-28" --requirements 2025-11-25
"$python" tests/interop/python_client.py --transport http "http://127.0.0.1:$port/mcp"
"$node" tests/interop/ts_client.mjs --transport http "http://127.0.0.1:$port/mcp"

proxy --shared -- "$tinymcp" --everything
"$python" tests/interop/python_client.py --transport http "http://127.0.0.1:$port/mcp"
"$node" tests/interop/ts_client.mjs --transport http "http://127.0.0.1:$port/mcp"
