#!/usr/bin/env bash
# Interop: the MCP Inspector's CLI (npm @modelcontextprotocol/inspector, pinned in scripts/deps.sh)
# against the real binary over stdio (the `everything` profile and a served folder), Streamable
# HTTP, legacy HTTP+SSE, and over stdio through `tinymcp connect` to the HTTP server. Each check
# runs one Inspector command and asserts on the JSON it printed from the server's answer. Usage: tests/interop/inspector_cli.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh
BIN=${1:-${CARGO_TARGET_DIR:-target}/release/tinymcp}
NODE=$PWD/.cache/npm/node_modules/.bin/node
INSPECTOR=$PWD/.cache/npm/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js
tmp=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$tmp"' EXIT
# The Inspector keeps a catalog of servers; it goes to the temporary folder, not ~.
export MCP_CATALOG_PATH="$tmp/catalog.json" PATH="$(dirname "$NODE"):$PATH"

passed=0
failed=0
# check NAME EXIT PY-EXPR -- INSPECTOR-ARGS...: the Inspector must exit with EXIT, and PY-EXPR
# must hold for `r`, the first JSON value it printed.
check() {
  local name=$1 want=$2 expr=$3
  shift 4
  local rc=0
  "$NODE" "$INSPECTOR" --cli "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [ "$rc" = "$want" ] && python3 -c '
import json, sys
r, _ = json.JSONDecoder().raw_decode(open(sys.argv[1]).read().lstrip())
sys.exit(0 if eval(sys.argv[2]) else 1)' "$tmp/out" "$expr" 2>>"$tmp/err"; then
    passed=$((passed + 1))
    echo "ok   $name" >&2
  else
    failed=$((failed + 1))
    echo "FAIL $name (exit $rc, wanted $want)" >&2
    head -c 2000 "$tmp/out" "$tmp/err" >&2
  fi
}

text='r["content"][0]["text"]'
check "stdio: tools/list" 0 '{"echo", "add", "test_sampling"} <= {t["name"] for t in r["tools"]}' -- \
  "$BIN" --everything --method tools/list
check "stdio: echo keeps shell characters" 0 "$text == 'Echo: a; \$(id) \`x\` \"q\"'" -- \
  "$BIN" --everything --method tools/call --tool-name echo --tool-arg "message=a; \$(id) \`x\` \"q\""
check "stdio: structured output" 0 'r["structuredContent"] == {"sum": 5}' -- \
  "$BIN" --everything --method tools/call --tool-name add --tool-arg a=2 b=3
check "stdio: resources/list" 0 'any(x["uri"] == "test://static-text" for x in r["resources"])' -- \
  "$BIN" --everything --method resources/list
check "stdio: binary resource" 0 'r["contents"][0]["blob"] and r["contents"][0]["mimeType"] == "image/png"' -- \
  "$BIN" --everything --method resources/read --uri test://static-binary
check "stdio: resource templates" 0 'r["resourceTemplates"][0]["uriTemplate"] == "test://template/{id}/data"' -- \
  "$BIN" --everything --method resources/templates/list
check "stdio: prompt arguments" 0 'r["messages"][0]["content"]["text"] == "Prompt with arguments: arg1='"'x'"', arg2='"'y'"'"' -- \
  "$BIN" --everything --method prompts/get --prompt-name test_prompt_with_arguments --prompt-args arg1=x arg2=y
check "stdio: logging/setLevel" 0 'r == {}' -- "$BIN" --everything --method logging/setLevel --log-level debug

mkdir -p "$tmp/root/sub"
printf 'hello from a file\n' >"$tmp/root/sub/a.txt"
printf 'outside\n' >"$tmp/secret.txt"
check "folder: read_file" 0 "$text == 'hello from a file\n'" -- \
  "$BIN" --root "$tmp/root" --method tools/call --tool-name read_file --tool-arg path=sub/a.txt
check "folder: an escape is an error result" 5 'r["isError"] is True and "leaves the served folder" in '"$text" -- \
  "$BIN" --root "$tmp/root" --method tools/call --tool-name read_file --tool-arg path=../secret.txt
check "folder: resources/read" 0 'r["contents"][0]["text"] == "hello from a file\n"' -- \
  "$BIN" --root "$tmp/root" --method resources/read --uri "file://$tmp/root/sub/a.txt"

port=$(free_port)
"$BIN" --everything --http "127.0.0.1:$port" 2>/dev/null &
server=$!
wait_port "$port"
check "http: echo" 0 "$text == 'Echo: over http'" -- \
  "http://127.0.0.1:$port/mcp" --method tools/call --tool-name echo --tool-arg "message=over http"
check "http: prompts/list" 0 '"test_simple_prompt" in {p["name"] for p in r["prompts"]}' -- \
  "http://127.0.0.1:$port/mcp" --method prompts/list
check "sse: echo" 0 "$text == 'Echo: over sse'" -- \
  "http://127.0.0.1:$port/sse" --method tools/call --tool-name echo --tool-arg "message=over sse"
check "sse: resources/read" 0 'r["contents"][0]["text"].startswith("This is the content")' -- \
  "http://127.0.0.1:$port/sse" --method resources/read --uri test://static-text

# `tinymcp connect`: the Inspector starts the bridge over stdio, the bridge speaks HTTP to the server.
check "connect: echo" 0 "$text == 'Echo: through connect'" -- \
  "$BIN" connect "http://127.0.0.1:$port/mcp" --method tools/call --tool-name echo --tool-arg "message=through connect"
check "connect: structured output" 0 'r["structuredContent"] == {"sum": 5}' -- \
  "$BIN" connect "http://127.0.0.1:$port/mcp" --method tools/call --tool-name add --tool-arg a=2 b=3
# (the Inspector takes `--transport` as its own option; auto falls back to legacy SSE at /sse)
check "connect, legacy SSE: resources/read" 0 'r["contents"][0]["text"].startswith("This is the content")' -- \
  "$BIN" connect "http://127.0.0.1:$port/sse" --method resources/read --uri test://static-text

echo "inspector-cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
