#!/usr/bin/env bash
# Figures for `tinymcp proxy` beside supergateway (npm, pinned in scripts/deps.sh), both bridging
# the same stdio child (the reference server-everything, a Node process per session) to Streamable
# HTTP, in the same run: keep-alive `echo` calls/s with 1 and 16 connections (each connection is a
# session, so the window includes starting its child), and memory per session: the bridge's own,
# and the child's apart. Figures, not tests. Usage: scripts/bench-proxy.sh [SECONDS] [SESSIONS]
# (called by scripts/bench.sh, which builds the driver; SUPERGATEWAY=path overrides the pinned one).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN="${1:-10}"
SESSIONS="${2:-20}"
DRIVER=target/release/examples/bench_stdio
NODE=$PWD/.cache/npm/node_modules/.bin/node
EVERYTHING=$PWD/.cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js
SUPERGATEWAY="${SUPERGATEWAY:-${TINYMCP_CACHE:-$PWD/.cache}/supergateway/node_modules/.bin/supergateway}"
[ -x "$DRIVER" ] || cargo build --release --quiet --example bench_stdio
[ -x target/release/tinymcp ] || cargo build --release --quiet --bin tinymcp

. scripts/lib.sh
# The resident memory of PID's children and grandchildren (the bridged servers), in KiB.
children_kib() {
  local total=0 pid
  for pid in $(pgrep -P "$1") $(for c in $(pgrep -P "$1"); do pgrep -P "$c"; done); do
    total=$((total + $(awk '/VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
# Ends PID and what it started, by id.
stop() {
  local c
  for c in $(pgrep -P "$1"); do pkill -P "$c" 2>/dev/null || true; kill "$c" 2>/dev/null || true; done
  kill "$1" 2>/dev/null || true
}
measure() { # measure PREFIX ARGS...: key=value lines from the driver into PREFIX_key
  local prefix=$1
  shift
  while IFS='=' read -r key value; do printf -v "${prefix}_${key}" '%s' "$value"; done < <(timeout 60 "$DRIVER" "$@" || true)
}

bridge() { # bridge NAME: starts it on a free port, sets `port` and `pid`
  port=$(free_port)
  case $1 in
    proxy) target/release/tinymcp proxy --http "127.0.0.1:$port" --max-sessions 3000 -- "$NODE" "$EVERYTHING" stdio \
      >/dev/null 2>&1 & ;;
    supergateway) PATH="$(dirname "$NODE"):$PATH" "$SUPERGATEWAY" --stdio "$NODE $EVERYTHING stdio" \
      --outputTransport streamableHttp --stateful --port "$port" --logLevel none >/dev/null 2>&1 & ;;
  esac
  pid=$!
  wait_port "$port" 20
}

for name in proxy supergateway; do
  [ "$name" = supergateway ] && [ ! -x "$SUPERGATEWAY" ] && { echo "supergateway not installed ($SUPERGATEWAY): run scripts/deps.sh"; continue; }
  for connections in 1 16; do
    bridge "$name"
    measure "${name}_c${connections}" http-echo "$SECONDS_PER_RUN" "$connections" -- "http://127.0.0.1:$port/mcp" "$pid"
    stop "$pid"
  done
  bridge "$name"
  before=$(children_kib "$pid")
  measure "${name}_mem" http-sessions "$SESSIONS" "$pid" -- "http://127.0.0.1:$port/mcp"
  sleep 2
  printf -v "${name}_child_kib" '%s' "$(( ($(children_kib "$pid") - before) / SESSIONS ))"
  stop "$pid"
done

v() { local name=$1; echo "${!name:-n/a}"; }
echo
echo "tinymcp proxy beside supergateway $(cat "${SUPERGATEWAY%/node_modules/.bin/supergateway}/.stamp" 2>/dev/null), both to server-everything over stdio, a child per session"
printf '  %-44s %14s %14s\n' "" "tinymcp proxy" "supergateway"
for c in 1 16; do
  printf '  %-44s %14s %14s\n' "echo calls/s, $c connection(s), ${SECONDS_PER_RUN} s" "$(v proxy_c${c}_http_echo_per_s)" "$(v supergateway_c${c}_http_echo_per_s)"
  printf '  %-44s %14s %14s\n' "  p50 / p99 ms" "$(v proxy_c${c}_http_p50_ms) / $(v proxy_c${c}_http_p99_ms)" \
    "$(v supergateway_c${c}_http_p50_ms) / $(v supergateway_c${c}_http_p99_ms)"
  printf '  %-44s %14s %14s\n' "  the bridge's CPU per call, µs" "$(v proxy_c${c}_http_cpu_us_per_call)" "$(v supergateway_c${c}_http_cpu_us_per_call)"
done
printf '  %-44s %14s %14s\n' "the bridge's memory per session, KiB ($SESSIONS)" "$(v proxy_mem_session_rss_kib_each)" "$(v supergateway_mem_session_rss_kib_each)"
printf '  %-44s %14s %14s\n' "  the child's, apart, KiB" "$(v proxy_child_kib)" "$(v supergateway_child_kib)"
