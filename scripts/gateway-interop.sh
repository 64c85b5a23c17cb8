#!/usr/bin/env bash
# `tinymcp gateway` in front of real servers nobody here wrote, driven by clients nobody here
# wrote: ONE gateway (Streamable HTTP on a free loopback port) aggregating server-everything,
# server-memory and server-filesystem (npm), mcp-server-time and mcp-server-git (PyPI), all over
# stdio, and a `tinymcp --everything --http` upstream behind TLS (a CA and a certificate made here
# with openssl, nginx as the TLS front). The Python SDK client at 2025-11-25 and 2026-07-28
# (tests/interop/python_gateway_all.py) and the TypeScript SDK client at 2025-11-25
# (tests/interop/ts_gateway.mjs) list the namespaced tools of all six, call one of each, read a
# resource, get a prompt, complete, subscribe, cancel a long call, and answer server-everything's
# sampling and elicitation through the gateway. Then the tool list's size as a client sees it:
# every tool, an allow list per upstream, and discovery mode (a gateway each).
# Usage: scripts/gateway-interop.sh [BINARY]  (default target/release/tinymcp, built with
# --features gateway; scripts/test.sh passes $TARGET/release/tinymcp). Skips (exit 77, one
# line) only when something scripts/deps.sh installs under .cache is missing; without nginx the
# TLS upstream alone is left out, with a line saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

tinymcp=$(realpath -m "${1:-${CARGO_TARGET_DIR:-target}/release/tinymcp}")
[ -x "$tinymcp" ] || { echo "gateway interop: no binary $tinymcp (cargo build --release --features gateway)" >&2; exit 1; }
node=$PWD/.cache/npm/node_modules/.bin/node
python=.cache/venv/bin/python
everything=$PWD/.cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js
gw=$PWD/.cache/gateway
memory=$gw/npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js
filesystem=$gw/npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
for need in "$node" "$python" "$everything" "$memory" "$filesystem" \
  "$gw/venv/bin/mcp-server-time" "$gw/venv/bin/mcp-server-git" .cache/npm/node_modules/@modelcontextprotocol/sdk; do
  [ -e "$need" ] || skip "gateway interop" "$need is missing (scripts/deps.sh installs it)"
done

work=$(mktemp -d)
pids=()
cleanup() {
  [ "${#pids[@]}" -gt 0 ] && kill "${pids[@]}" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# What the file and git upstreams work on: a folder, and a repository with one commit and a
# file changed since.
mkdir -p "$work/files" "$work/repo"
echo "served through the gateway" >"$work/files/hello.txt"
git -C "$work/repo" init -q -b main
git -C "$work/repo" -c user.name=interop -c user.email=interop@example.com commit -q --allow-empty -m "first"
echo "not yet committed" >"$work/repo/untracked.txt"

# The TLS upstream: tinymcp --everything on plain HTTP behind nginx with a certificate of a CA
# made here (the gateway trusts it through --ca-file). nginx keeps connections alive both ways
# and passes SSE event by event, as the deploy template does.
tls_upstream=""
ca_args=()
# nginx as scripts/scale-test.sh gets it (scripts/syspkg.sh installs it when told to).
. scripts/syspkg.sh
if ! PATH=$PATH:/usr/sbin need_command nginx nginx 2>/dev/null; then
  echo "gateway interop: the TLS upstream skipped: nginx is missing (apt-get install -y nginx); the other five are tested"
else
  NGINX=$(PATH=$PATH:/usr/sbin command -v nginx)
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=tinymcp interop CA" \
    -keyout "$work/ca.key" -out "$work/ca.pem" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$work/tls.key" -out "$work/tls.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' >"$work/tls.ext"
  openssl x509 -req -in "$work/tls.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 1 \
    -extfile "$work/tls.ext" -out "$work/tls.pem" 2>/dev/null
  plain_port=$(free_port)
  "$tinymcp" --everything --http "127.0.0.1:$plain_port" 2>"$work/tls-upstream.log" &
  pids+=($!)
  tls_port=$(free_port)
  mkdir -p "$work/nginx/tmp"
  cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 256; }
http {
    client_body_temp_path $work/nginx/tmp/body;
    proxy_temp_path $work/nginx/tmp/proxy;
    fastcgi_temp_path $work/nginx/tmp/fastcgi;
    uwsgi_temp_path $work/nginx/tmp/uwsgi;
    scgi_temp_path $work/nginx/tmp/scgi;
    access_log off;
    upstream tinymcp { server 127.0.0.1:$plain_port; keepalive 8; }
    server {
        listen 127.0.0.1:$tls_port ssl;
        ssl_certificate $work/tls.pem;
        ssl_certificate_key $work/tls.key;
        location / {
            proxy_pass http://tinymcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host 127.0.0.1:$plain_port;
            proxy_buffering off;
            proxy_read_timeout 300s;
        }
    }
}
EOF
  "$NGINX" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" -t -q
  "$NGINX" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
  pids+=($!)
  wait_port "$plain_port"
  wait_port "$tls_port"
  tls_upstream=", \"tls\": {\"url\": \"https://127.0.0.1:$tls_port/mcp\"%s}"
  ca_args=(--ca-file "$work/ca.pem")
fi

# config FILE DISCOVERY ALLOW...: the six upstreams; ALLOW (tool globs, one per upstream in the
# order below, `*` for all) makes the allow-list config.
config() {
  local file=$1 discovery=$2
  shift 2
  local a=('*' '*' '*' '*' '*' '*')
  [ $# -gt 0 ] && a=("$@")
  allow() { printf ', "tools": {"allow": ["%s"]}' "$1"; }
  # shellcheck disable=SC2059 # the TLS part holds a %s for its allow list
  cat >"$file" <<JSON
{"discovery": $discovery, "audit": "$file.audit", "upstreams": {
  "everything": {"command": "$node", "args": ["$everything", "stdio"]$(allow "${a[0]}")},
  "memory": {"command": "$node", "args": ["$memory"], "env": {"MEMORY_FILE_PATH": "$work/memory-$(basename "$file").jsonl"}$(allow "${a[1]}")},
  "files": {"command": "$node", "args": ["$filesystem", "$work/files"]$(allow "${a[2]}")},
  "time": {"command": "$gw/venv/bin/mcp-server-time", "args": ["--local-timezone", "UTC"]$(allow "${a[3]}")},
  "git": {"command": "$gw/venv/bin/mcp-server-git", "args": ["--repository", "$work/repo"]$(allow "${a[4]}")}
  $(if [ -n "$tls_upstream" ]; then printf "$tls_upstream" "$(allow "${a[5]}")"; fi)
}}
JSON
}

# gateway CONFIG: starts one on a free port, waits for it (it serves once every upstream's
# first attempt is over), and sets `port`; its log is CONFIG.log.
gateway() {
  port=$(free_port)
  "$tinymcp" gateway --config "$1" "${ca_args[@]}" --http "127.0.0.1:$port" 2>"$1.log" &
  pids+=($!)
  wait_port "$port" 40 || { cat "$1.log" >&2; return 1; }
}

config "$work/all.json" false
gateway "$work/all.json"
url="http://127.0.0.1:$port/mcp"
health=$(curl -fsS "http://127.0.0.1:$port/healthz")
echo "$health"
upstreams=(everything memory files time git)
[ -n "$tls_upstream" ] && upstreams+=(tls)
for u in "${upstreams[@]}"; do
  grep -q "^upstream $u: up" <<<"$health" || { echo "gateway interop: upstream $u is not up" >&2; cat "$work/all.json.log" >&2; exit 1; }
done
status=0
with=(--files "$work/files" --repo "$work/repo")
[ -n "$tls_upstream" ] && with+=(--tls)
# cancelled_after WHAT: each client cancels one long call; the gateway must have seen it as
# cancelled (and cancelled it upstream): one more audit line with that outcome than before.
cancelled=0
# The line may come a moment after the client is gone: polled every 50 ms, 10 s at most.
cancelled_after() {
  local now
  for _ in $(seq 200); do
    now=$(grep '"outcome":"cancelled"' "$work/all.json.audit" | grep -c '"tool":"trigger-long-running-operation"' || true)
    [ "$now" -gt "$cancelled" ] && break
    sleep 0.05
  done
  if [ "$now" != $((cancelled + 1)) ]; then
    echo "gateway interop: $1: $((now - cancelled)) calls audited as cancelled, expected 1" >&2
    cat "$work/all.json.audit" >&2
    status=1
  fi
  cancelled=$now
}
# 2026-07-28 first: its listen stream must subscribe upstream by itself (no 2025-11-25
# subscription made before it).
for mode in 2026-07-28 legacy; do
  (cd tests/interop && ../../"$python" python_gateway_all.py --mode "$mode" "${with[@]}" "$url") || status=1
  cancelled_after "the Python SDK client at $mode"
done
"$node" tests/interop/ts_gateway.mjs "${with[@]}" "$url" || status=1
cancelled_after "the TypeScript SDK client"

# The tool list's size as a client gets it: every tool, then an allow list per upstream (the
# tools a team would use), then discovery mode's two tools.
config "$work/allow.json" false 'echo' 'read_graph' 'read_text_file' 'get_current_time' 'git_status' 'echo'
config "$work/discovery.json" true
sizes=()
for mode in all allow discovery; do
  if [ "$mode" != all ]; then gateway "$work/$mode.json"; fi
  sizes+=("$(cd tests/interop && ../../"$python" python_gateway_all.py --size "$mode" "http://127.0.0.1:$port/mcp")") || status=1
  grep -o 'gateway: tool list: .*' "$work/$mode.json.log" | sed "s/^/  ($mode) /"
done
printf '%s\n' "${sizes[@]}"
read -r _ _ all_bytes _ <<<"${sizes[0]}"
read -r _ _ allow_bytes _ <<<"${sizes[1]}"
read -r _ _ discovery_bytes _ <<<"${sizes[2]}"
if ! [ "$allow_bytes" -lt "$all_bytes" ] || ! [ "$discovery_bytes" -lt "$allow_bytes" ]; then
  echo "gateway interop: expected every tool > an allow list > discovery, bytes $all_bytes, $allow_bytes, $discovery_bytes" >&2
  status=1
fi
exit $status
