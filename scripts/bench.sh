#!/usr/bin/env bash
# Prints the figures we hold ourselves to, measured on this machine in one run; stdio beside the
# yardstick @modelcontextprotocol/server-everything (Node) driven the same way.
# Figures, not tests: nothing here fails on a slow machine. Usage: scripts/bench.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN="${1:-5}"

bash scripts/deps.sh
# Separate builds: with the example in the same build, dev-dependency features (serde_json's
# float_roundtrip) would leak into the measured binary.
cargo build --release --quiet --example bench_stdio
cargo build --release --quiet --bin tinymcp
DRIVER=target/release/examples/bench_stdio
BUILDS=("dynamic glibc:target/release/tinymcp")
# The static musl build too, when this toolchain has (or rustup can fetch) the target.
MUSL=x86_64-unknown-linux-musl
if rustup target list --installed 2>/dev/null | grep -qx "$MUSL" || rustup target add "$MUSL" >/dev/null 2>&1; then
  cargo build --release --quiet --bin tinymcp --target "$MUSL"
  BUILDS+=("static musl:target/$MUSL/release/tinymcp")
fi
NODE=.cache/npm/node_modules/.bin/node
YARDSTICK=("$NODE" .cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio)

# key=value lines from the driver, read into shell variables with a prefix.
measure() {
  local prefix=$1
  shift
  while IFS='=' read -r key value; do
    printf -v "${prefix}_${key}" '%s' "$value"
  done < <("$DRIVER" "$@")
}

aim() { # aim NAME VALUE OP LIMIT UNIT
  local verdict
  if awk -v v="$2" -v l="$4" "BEGIN { exit !(v $3 l) }"; then verdict=OK; else verdict=MISS; fi
  printf '  %-44s %12s %-6s aim %s %s  %s\n' "$1" "$2" "$5" "$3" "$4" "$verdict"
}
note() { printf '  %-44s %12s %s\n' "$1" "$2" "$3"; }
kib_to_mib() { awk -v k="$1" 'BEGIN { printf "%.2f", k / 1024 }'; }
bytes_to_mib() { awk -v s="$1" 'BEGIN { printf "%.3f", s / 1048576 }'; }

measure yard startup 5 -- "${YARDSTICK[@]}"
measure yard echo "$SECONDS_PER_RUN" 64 -- "${YARDSTICK[@]}"

echo
echo "tinymcp $(target/release/tinymcp --version | cut -d' ' -f2) on $(nproc) cores, $(uname -m)"
echo "yardstick: server-everything on Node $("$NODE" --version): first answer ${yard_startup_median_ms} ms," \
  "${yard_echo_per_s} echo/s, idle $(kib_to_mib "$yard_idle_rss_kib") MiB, peak $(kib_to_mib "$yard_peak_rss_kib") MiB"

for build in "${BUILDS[@]}"; do
  kind=${build%%:*}
  bin=${build#*:}
  measure ours startup 50 -- "$bin" --everything
  measure ours echo "$SECONDS_PER_RUN" 64 -- "$bin" --everything
  measure sl echo-stateless "$SECONDS_PER_RUN" 64 -- "$bin" --everything
  echo
  echo "stdio, $kind build ($bin)"
  aim "spawn to initialize answer, median" "$ours_startup_median_ms" "<" 1 "ms"
  note "spawn to initialize answer, p90" "$ours_startup_p90_ms" "ms"
  aim "echo calls/s, 64 in flight" "$ours_echo_per_s" ">=" 100000 "/s"
  aim "  ratio to the yardstick" "$(awk -v a="$ours_echo_per_s" -v b="$yard_echo_per_s" 'BEGIN { printf "%.1f", a / b }')" ">=" 3.5 "x"
  note "echo calls/s at 2026-07-28 (no handshake, _meta each)" "$sl_echo_per_s" "/s"
  aim "  cost of a stateless call to a stateful one" "$(awk -v a="$ours_echo_per_s" -v b="$sl_echo_per_s" 'BEGIN { printf "%.2f", a / b }')" "<=" 1.2 "x"
  aim "idle resident memory (VmRSS)" "$(kib_to_mib "$ours_idle_rss_kib")" "<" 2 "MiB"
  note "peak resident memory under load (VmHWM)" "$(kib_to_mib "$ours_peak_rss_kib")" "MiB"
  aim "stripped release binary" "$(bytes_to_mib "$(stat -c %s "$bin")")" "<" 1 "MiB"
done

# HTTP (glibc build): keep-alive `echo` with 1 and 16 connections, memory per idle session,
# 1000 streams held open; the yardstick's Streamable HTTP server measured the same way.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.05; done; }
port=$(free_port)
target/release/tinymcp --everything --http "127.0.0.1:$port" --max-sessions 3000 2>/dev/null &
server=$!
yport=$(free_port)
PORT=$yport "$NODE" .cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js streamableHttp >/dev/null 2>&1 &
yserver=$!
trap 'kill $server $yserver 2>/dev/null' EXIT
wait_port "$port"
wait_port "$yport"
url="http://127.0.0.1:$port/mcp"
yurl="http://127.0.0.1:$yport/mcp"
measure one http-echo "$SECONDS_PER_RUN" 1 -- "$url"
measure many http-echo "$SECONDS_PER_RUN" 16 -- "$url"
measure slmany http-echo-stateless "$SECONDS_PER_RUN" 16 -- "$url"
measure sess http-sessions 1000 "$server" -- "$url"
measure streams http-streams 1000 "$server" -- "$url"
measure yone http-echo "$SECONDS_PER_RUN" 1 -- "$yurl"
measure ymany http-echo "$SECONDS_PER_RUN" 16 -- "$yurl"
measure ysess http-sessions 1000 "$yserver" -- "$yurl"
echo
echo "yardstick over Streamable HTTP: ${yone_http_echo_per_s} echo/s on 1 connection (p50 ${yone_http_p50_ms} ms)," \
  "${ymany_http_echo_per_s} echo/s on 16 (p50 ${ymany_http_p50_ms} ms), ${ysess_session_rss_kib_each} KiB per idle session"
echo "Streamable HTTP, dynamic glibc build (keep-alive, one request at a time per connection)"
note "echo calls/s, 1 connection" "$one_http_echo_per_s" "/s   p50 ${one_http_p50_ms} ms, p99 ${one_http_p99_ms} ms"
aim "echo calls/s, 16 connections" "$many_http_echo_per_s" ">=" 20000 "/s"
note "  latency p50 / p99" "$many_http_p50_ms" "ms / ${many_http_p99_ms} ms"
note "echo calls/s at 2026-07-28, 16 connections" "$slmany_http_echo_per_s" "/s   p50 ${slmany_http_p50_ms} ms, p99 ${slmany_http_p99_ms} ms"
aim "  cost of a stateless call to a stateful one" "$(awk -v a="$many_http_echo_per_s" -v b="$slmany_http_echo_per_s" 'BEGIN { printf "%.2f", a / b }')" "<=" 1.2 "x"
note "  ratio to the yardstick" "$(awk -v a="$many_http_echo_per_s" -v b="$ymany_http_echo_per_s" 'BEGIN { printf "%.1f", a / b }')" "x"
aim "resident memory per idle session (1000)" "$sess_session_rss_kib_each" "<" 16 "KiB"
note "1000 GET streams held open: opened in" "$streams_streams_open_s" "s, ${streams_stream_rss_kib_each} KiB and ${streams_stream_threads_each} threads each"
note "  one list_changed reaching all of them" "$streams_broadcast_ms" "ms (${streams_broadcast_reached} reached)"
