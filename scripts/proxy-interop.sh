#!/usr/bin/env bash
# `tinymcp proxy` with clients and a server nobody here wrote: the Python SDK client (Streamable
# HTTP and legacy SSE) and the TypeScript SDK client through the proxy to `tinymcp --everything`
# over stdio (every feature, as direct), then the Python and TypeScript SDK clients (each over
# Streamable HTTP and legacy SSE) through the proxy to the reference server-everything over stdio
# (tools, resources, prompts, completion, sampling, elicitation, a subscription, progress,
# cancellation), then through `--config` to one of two named servers.
# Runs the release binary (scripts/lib.sh: release_binary) with scripts/deps.sh's .cache.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/lib.sh
tinymcp=$(release_binary)
node=.cache/npm/node_modules/.bin/node
python=.cache/venv/bin/python
everything=.cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js
. scripts/proxy-launch.sh

proxy -- "$tinymcp" --everything
"$python" tests/interop/python_client.py --transport http "http://127.0.0.1:$port/mcp"
"$python" tests/interop/python_client.py --transport sse "http://127.0.0.1:$port/sse"
"$node" tests/interop/ts_client.mjs --transport http "http://127.0.0.1:$port/mcp"

proxy -- "$PWD/$node" "$PWD/$everything" stdio
"$python" tests/interop/python_proxy.py --transport http "http://127.0.0.1:$port/mcp"
"$python" tests/interop/python_proxy.py --transport sse "http://127.0.0.1:$port/sse"
"$node" tests/interop/ts_proxy.mjs --transport http "http://127.0.0.1:$port/mcp"
"$node" tests/interop/ts_proxy.mjs --transport sse "http://127.0.0.1:$port/sse"

config="$logs/servers.json"
cat >"$config" <<JSON
{"mcpServers": {
  "everything": {"command": "$PWD/$node", "args": ["$PWD/$everything", "stdio"]},
  "tinymcp": {"command": "$tinymcp", "args": ["--everything"]}
}}
JSON
proxy --config "$config"
"$python" tests/interop/python_client.py --transport http "http://127.0.0.1:$port/tinymcp/mcp"
