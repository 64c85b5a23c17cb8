#!/usr/bin/env bash
# Prints the figures we hold ourselves to, measured on this machine in one run: the glibc (dynamic)
# and the static musl build side by side over stdio, beside the yardstick
# @modelcontextprotocol/server-everything (Node) driven the same way; allocations per call from
# the counting build (examples/counting); an embedder's binary (examples/http_server); size per
# crate and per module (cargo bloat); then HTTP, `--metrics`' cost, the proxy and the gateway.
# Figures, not tests: nothing here fails on a slow machine. Usage: scripts/bench.sh [SECONDS]
# (BENCH_ROUNDS=N: rounds of the stdio measurements, alternating the builds; the best is shown,
# the medians for the 2026-07-28 ratios.)
# What it prints also replaces the generated block of docs/benchmarks.md, the one place the
# figures are written down (BENCH_DOC=0 leaves the document alone).
# `scripts/bench.sh ab REV [SECONDS]`: only the same-run A/B of this tree's server against the
# one built from git revision REV (CPU per echo call over stdio and over HTTP with 16
# connections, with the handshake and at 2026-07-28, rounds alternating the two builds): how a
# hand-written path earns its place (more than 10% of CPU per call) or a change shows it costs
# none (within 1.10x).
# `scripts/bench.sh metrics [SECONDS]`: only the same-run figure of this tree's server without
# and with `--metrics` (over stdio `--metrics 127.0.0.1:0`, a listener of its own; over HTTP on
# the same listener), CPU per echo call measured as the A/B above: the hot-path cost of the
# counters, aimed at 3% or less. The whole run prints it too.
# `scripts/bench.sh gateway [SECONDS]`: only the gateway's figures (docs/gateway.md), from the
# release build with `--features gateway` (in $TARGET/gateway): `echo` over Streamable HTTP, 16
# connections and 1, with the handshake and at 2026-07-28, to `tinymcp --everything --http`
# directly and through `tinymcp gateway --http` with that server as its upstream (a stdio child;
# and the same HTTP server as a remote upstream), rounds alternating the three (BENCH_ROUNDS,
# default 3; medians); then the tool list a client gets from a gateway over `--everything` and
# server-everything (Node): no filter, an allow list, discovery. The whole run prints it too, and
# either run writes it into docs/benchmarks.md (a gateway-only run replaces only its part).
# `scripts/bench.sh store [SECONDS]`: only the same-run figures of the store (`--store`, a
# redis-server started on a free loopback port) against none: a task round-trip of a 2025-11-25
# session and a list change's fan-out to 64 listen streams (half on each of two replicas with
# the store; on one server without). The whole run prints it too.
set -euo pipefail
cd "$(dirname "$0")/.."
# The median of the numbers given (each mode's rounds, the A/B figures).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# The gateway's figures (`scripts/bench.sh gateway`): gateway_bench SECONDS ROUNDS. Its first
# line starts with "gateway:", where the document writer below finds its part.
gateway_bench() {
  local seconds=$1 rounds=$2 target=${CARGO_TARGET_DIR:-target}
  . scripts/lib.sh
  cargo build --release --quiet --example bench_stdio
  # Its own target folder: the default build elsewhere in this script stays the one measured.
  cargo build --release --quiet -p tinymcp-cli --features gateway --bin tinymcp --target-dir "$target/gateway"
  local driver=$target/release/examples/bench_stdio bin=$PWD/$target/gateway/release/tinymcp
  local node=$PWD/.cache/npm/node_modules/.bin/node
  local yardstick=$PWD/.cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js
  local dir pids=() port gport hport server gstdio ghttp child
  dir=$(mktemp -d)
  # Ends what this function started, by id (a gateway ends its stdio children itself).
  gw_stop() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    pids=()
  }
  gw_start() { # gw_start PORT CONFIG: a gateway over HTTP on PORT, once it serves
    "$bin" gateway --config "$2" --http "127.0.0.1:$1" --max-sessions 3000 2>/dev/null &
    pids+=($!)
    wait_port "$1" 60
  }
  port=$(free_port) gport=$(free_port) hport=$(free_port)
  "$bin" --everything --http "127.0.0.1:$port" --max-sessions 3000 2>/dev/null &
  server=$!
  pids+=("$server")
  wait_port "$port"
  printf '{"upstreams": {"everything": {"command": "%s", "args": ["--everything"]}}}\n' "$bin" >"$dir/stdio.json"
  printf '{"upstreams": {"everything": {"url": "http://127.0.0.1:%s/mcp"}}}\n' "$port" >"$dir/http.json"
  gw_start "$gport" "$dir/stdio.json"
  gstdio=${pids[-1]}
  gw_start "$hport" "$dir/http.json"
  ghttp=${pids[-1]}
  child=$(pgrep -P "$gstdio" | head -1)
  # What each path's CPU per call counts: every process on it (the gateway's first).
  local -A url=([direct]="http://127.0.0.1:$port/mcp" [stdio]="http://127.0.0.1:$gport/mcp" [http]="http://127.0.0.1:$hport/mcp")
  local -A cpu_pids=([direct]=$server [stdio]="$gstdio,$child" [http]="$ghttp,$server")
  local -A tool=([direct]=echo [stdio]=everything__echo [http]=everything__echo)
  local -A fig=()
  local path mode c key value
  for _ in $(seq "$rounds"); do
    for path in direct stdio http; do
      for mode in http-echo http-echo-stateless; do
        for c in 16 1; do
          while IFS='=' read -r key value; do
            fig[$path.$mode.$c.$key]+="$value "
          done < <(BENCH_ECHO_TOOL=${tool[$path]} timeout $((seconds + 60)) "$driver" "$mode" "$seconds" "$c" -- \
            "${url[$path]}" "${cpu_pids[$path]}" || true)
        done
      done
    done
  done
  gw_stop
  m() { # m PATH.MODE.CONNECTIONS.KEY: the median of the rounds
    # shellcheck disable=SC2086 # one word per round
    [ -n "${fig[$1]:-}" ] && median ${fig[$1]} || echo n/a
  }
  echo "gateway: echo over Streamable HTTP (keep-alive, one call at a time per connection) to \`tinymcp --everything --http\`"
  echo "  directly and through \`tinymcp gateway --http\` in front of it (its stdio child; the same HTTP server as a remote"
  echo "  upstream), median of $rounds alternated rounds of $seconds s; CPU per call: every process on the path (the gateway's own)"
  printf '  %-48s %16s %16s %16s\n' "" direct "gateway, stdio" "gateway, HTTP"
  local label row d
  for mode in http-echo http-echo-stateless; do
    for c in 16 1; do
      label="$c connection$([ "$c" = 1 ] || echo s), $([ "$mode" = http-echo ] && echo 'handshake (2025-06-18)' || echo 2026-07-28)"
      printf '  %-48s %16s %16s %16s\n' "$label: calls/s" "$(m "direct.$mode.$c.http_echo_per_s")" \
        "$(m "stdio.$mode.$c.http_echo_per_s")" "$(m "http.$mode.$c.http_echo_per_s")"
      printf '  %-48s %16s %16s %16s\n' "  p50 / p99 ms" \
        "$(m "direct.$mode.$c.http_p50_ms") / $(m "direct.$mode.$c.http_p99_ms")" \
        "$(m "stdio.$mode.$c.http_p50_ms") / $(m "stdio.$mode.$c.http_p99_ms")" \
        "$(m "http.$mode.$c.http_p50_ms") / $(m "http.$mode.$c.http_p99_ms")"
      row=()
      for path in stdio http; do
        d=$(awk -v a="$(m "$path.$mode.$c.http_p50_ms")" -v b="$(m "direct.$mode.$c.http_p50_ms")" 'BEGIN { printf "%+.3f", a - b }')
        row+=("$d")
      done
      printf '  %-48s %16s %16s %16s\n' "  added latency, p50 ms" "" "${row[@]}"
      printf '  %-48s %16s %16s %16s\n' "  CPU per call, µs" "$(m "direct.$mode.$c.http_cpu_us_per_call")" \
        "$(m "stdio.$mode.$c.http_cpu_us_per_call") ($(m "stdio.$mode.$c.http_cpu_us_per_call_first"))" \
        "$(m "http.$mode.$c.http_cpu_us_per_call") ($(m "http.$mode.$c.http_cpu_us_per_call_first"))"
    done
  done
  # The tool list a client gets from one gateway over both everything servers (stdio children),
  # as its `tools/list` (every page; bytes of `{"tools":[...]}`, as the gateway counts them) and
  # the gateway's own `/healthz` line (in discovery: the catalogue behind the two tools).
  local filter tools
  echo "gateway over \`tinymcp --everything\` and server-everything (Node, $("$node" --version)), stdio: the tool list a client gets"
  for filter in none allow discovery; do
    local ours='{"command": "'$bin'", "args": ["--everything"]' theirs='{"command": "'$node'", "args": ["'$yardstick'", "stdio"]'
    local extra='' discovery=false
    case $filter in
      allow) extra=', "tools": {"allow": ["echo", "get-sum", "greet"]}' ;;
      discovery) discovery=true ;;
    esac
    printf '{"discovery": %s, "upstreams": {"tinymcp": %s%s}, "everything": %s%s}}}\n' \
      "$discovery" "$ours" "$extra" "$theirs" "$extra" >"$dir/$filter.json"
    gport=$(free_port)
    gw_start "$gport" "$dir/$filter.json"
    tools=$("$driver" http-tools -- "http://127.0.0.1:$gport/mcp" | tr '\n' ' ')
    printf '  %-48s %s\n' "$(case $filter in none) echo 'no filter' ;; allow) echo "allow (each): echo, get-sum, greet" ;; discovery) echo 'discovery' ;; esac)" \
      "$(echo "$tools" | sed 's/tools=\([0-9]*\) tools_bytes=\([0-9]*\) */\1 tools, \2 bytes/')"
    printf '  %-48s %s\n' "  its /healthz" "$(curl -s "http://127.0.0.1:$gport/healthz" | grep -E '^(tool list|upstream)' | paste -sd';' | sed 's/;/; /g')"
    gw_stop
  done
  rm -rf "$dir"
}
if [ "${1:-}" = metrics ]; then
  seconds=${2:-5}
  rounds=${BENCH_ROUNDS:-5}
  . scripts/lib.sh
  TARGET=${CARGO_TARGET_DIR:-target}
  cargo build --release --quiet --example bench_stdio
  cargo build --release --quiet --bin tinymcp
  driver=$TARGET/release/examples/bench_stdio
  declare -A stdio_flags=([off]="" [on]="--metrics 127.0.0.1:0") http_flags=([off]="" [on]="--metrics")
  declare -A cpu
  for _ in $(seq "$rounds"); do
    for build in off on; do
      # shellcheck disable=SC2086 # the flags are words on purpose
      cpu[$build.stdio]+="$("$driver" echo "$seconds" 64 -- "$TARGET/release/tinymcp" --everything ${stdio_flags[$build]} |
        sed -n 's/^cpu_us_per_call=//p') "
      port=$(free_port)
      # shellcheck disable=SC2086
      "$TARGET/release/tinymcp" --everything --http "127.0.0.1:$port" ${http_flags[$build]} 2>/dev/null &
      server=$!
      wait_port "$port"
      cpu[$build.http]+="$("$driver" http-echo "$seconds" 16 -- "http://127.0.0.1:$port/mcp" "$server" |
        sed -n 's/^http_cpu_us_per_call=//p') "
      kill "$server"
      wait "$server" 2>/dev/null || true
    done
  done
  echo "metrics' cost: server CPU per echo call, µs, median of $rounds alternated rounds of $seconds s"
  printf '  %-34s %8s %8s %7s\n' "" off on "on/off"
  for mode in stdio http; do
    a=$(median ${cpu[off.$mode]}) b=$(median ${cpu[on.$mode]})
    printf '  %-34s %8s %8s %7s\n' "echo ($([ "$mode" = http ] && echo 'HTTP, 16 connections' || echo stdio))" \
      "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3fx", b / a }')"
  done
  # Counted, not timed (a busy machine moves the figures above by more than the difference):
  # the instructions of 2000 echo calls over stdio under callgrind, less those of none.
  if command -v valgrind >/dev/null; then
    calls() {
      python3 -c 'import json, sys
print(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}))
print(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
for i in range(int(sys.argv[1])):
    print(json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}}))' "$1"
    }
    refs() { # refs CALLS FLAGS...: instructions of the whole process
      local n=$1
      shift
      calls "$n" | valgrind --tool=callgrind --callgrind-out-file=/dev/null "$TARGET/release/tinymcp" --everything "$@" 2>&1 >/dev/null |
        sed -n 's/.*refs: *//p' | tr -d ,
    }
    off=$(($(refs 2000) - $(refs 0))) on=$(($(refs 2000 --metrics 127.0.0.1:0) - $(refs 0 --metrics 127.0.0.1:0)))
    printf '  %-34s %8s %8s %7s\n' "instructions per echo call (stdio)" $((off / 2000)) $((on / 2000)) \
      "$(awk -v a="$off" -v b="$on" 'BEGIN { printf "%.3fx", b / a }')"
  fi
  exit 0
fi
store_bench() { # store_bench SECONDS: the figures of `scripts/bench.sh store`
  local seconds=$1 streams=64 rounds=50
  . scripts/lib.sh
  TARGET=${CARGO_TARGET_DIR:-target}
  # The store's features, in a target folder of its own, so the whole run's default build stays.
  cargo build --release --quiet --features oauth,store --bin tinymcp --target-dir "$TARGET/store"
  if ! command -v redis-server >/dev/null; then
    echo "the store's cost: skipped, redis-server is missing (apt-get install -y redis-server)"
    return 0
  fi
  local redis_port pids=() a b t_off t_on f_off f_on
  redis_port=$(free_port)
  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no >/dev/null 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
  serve() { # serve PORT FLAGS...: a server in the background
    local port=$1
    shift
    "$TARGET/store/release/tinymcp" --everything --http "127.0.0.1:$port" "$@" 2>/dev/null &
    pids+=($!)
    wait_port "$port"
  }
  a=$(free_port)
  serve "$a"
  t_off=$(python3 scripts/bench-store.py task "http://127.0.0.1:$a/mcp" "$seconds" | sed -n 's/^task_ms=//p')
  f_off=$(python3 scripts/bench-store.py fanout "http://127.0.0.1:$a/mcp" "http://127.0.0.1:$a/mcp" "$streams" "$rounds" |
    sed -n 's/^fanout_ms=//p')
  a=$(free_port)
  serve "$a" --store "redis://127.0.0.1:$redis_port" --node-id a
  b=$(free_port)
  serve "$b" --store "redis://127.0.0.1:$redis_port" --node-id b
  t_on=$(python3 scripts/bench-store.py task "http://127.0.0.1:$a/mcp" "$seconds" | sed -n 's/^task_ms=//p')
  f_on=$(python3 scripts/bench-store.py fanout "http://127.0.0.1:$a/mcp" "http://127.0.0.1:$b/mcp" "$streams" "$rounds" |
    sed -n 's/^fanout_ms=//p')
  kill "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null || true
  echo "the store's cost (redis-server $(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p') on loopback), ms, same run"
  printf '  %-60s %8s %8s %10s\n' "" none store "store/none"
  printf '  %-60s %8s %8s %10s\n' "task round-trip (call, tasks/get until done, tasks/result)" "$t_off" "$t_on" \
    "$(awk -v a="$t_off" -v b="$t_on" 'BEGIN { printf "%.2fx", b / a }')"
  printf '  %-60s %8s %8s %10s\n' "list change to $streams listen streams (median of $rounds)" "$f_off" "$f_on" \
    "$(awk -v a="$f_off" -v b="$f_on" 'BEGIN { printf "%.2fx", b / a }')"
}
if [ "${1:-}" = store ]; then
  store_bench "${2:-5}"
  exit 0
fi
if [ "${1:-}" = ab ]; then
  rev=${2:?usage: scripts/bench.sh ab REV [SECONDS]}
  seconds=${3:-5}
  rounds=${BENCH_ROUNDS:-5}
  . scripts/lib.sh
  TARGET=${CARGO_TARGET_DIR:-target}
  base_src=$TARGET/ab/src
  [ -d "$base_src" ] || git clone --quiet --shared . "$base_src"
  git -C "$base_src" fetch --quiet "$PWD" HEAD 2>/dev/null || true
  git -C "$base_src" checkout --quiet --detach "$(git rev-parse "$rev")"
  cargo build --release --quiet --manifest-path "$base_src/Cargo.toml" --bin tinymcp --target-dir "$TARGET/ab/target"
  cargo build --release --quiet --example bench_stdio
  cargo build --release --quiet --bin tinymcp
  driver=$TARGET/release/examples/bench_stdio
  declare -A bin=([A]=$TARGET/ab/target/release/tinymcp [B]=$TARGET/release/tinymcp)
  declare -A cpu
  for _ in $(seq "$rounds"); do
    for build in A B; do
      for mode in echo echo-stateless; do
        cpu[$build.$mode]+="$("$driver" "$mode" "$seconds" 64 -- "${bin[$build]}" --everything |
          sed -n 's/^cpu_us_per_call=//p') "
      done
      port=$(free_port)
      "${bin[$build]}" --everything --http "127.0.0.1:$port" 2>/dev/null &
      server=$!
      wait_port "$port"
      for mode in http-echo http-echo-stateless; do
        cpu[$build.$mode]+="$("$driver" "$mode" "$seconds" 16 -- "http://127.0.0.1:$port/mcp" "$server" |
          sed -n 's/^http_cpu_us_per_call=//p') "
      done
      kill "$server"
      wait "$server" 2>/dev/null || true
    done
  done
  echo "server CPU per echo call, µs, median of $rounds alternated rounds of $seconds s: A = $rev, B = this tree"
  printf '  %-34s %8s %8s %7s\n' "" A B "B/A"
  for mode in echo echo-stateless http-echo http-echo-stateless; do
    a=$(median ${cpu[A.$mode]}) b=$(median ${cpu[B.$mode]})
    printf '  %-34s %8s %8s %7s\n' "$mode$([ "${mode#http}" != "$mode" ] && echo ' (16 connections)' || echo ' (stdio)')" \
      "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2fx", b / a }')"
  done
  exit 0
fi
if [ -z "${BENCH_INNER:-}" ]; then
  out=$(mktemp)
  BENCH_INNER=1 bash "$0" "$@" | tee "$out"
  if [ "${BENCH_DOC:-1}" != 0 ]; then
    python3 - "$out" "$(git rev-parse --short HEAD)" "$*" <<'PY'
import datetime, sys
out, commit, args = sys.argv[1], sys.argv[2], sys.argv[3]
path = "docs/benchmarks.md"
doc = open(path).read()
begin, end = "<!-- bench.sh: begin -->\n", "<!-- bench.sh: end -->"
def replace(doc, name, body):
    begin, end = f"<!-- {name}: begin -->\n", f"<!-- {name}: end -->"
    if begin not in doc:  # a part first written: inside the whole block, at its end
        doc = doc.replace("<!-- bench.sh: end -->", "\n" + begin + end + "\n<!-- bench.sh: end -->", 1)
    head, rest = doc.split(begin, 1)
    return head + begin + body + end + rest.split(end, 1)[1]
def block(args, text, what=""):
    return (what + f"`bash scripts/bench.sh {args}`".replace(" `", "`") + f", {datetime.date.today()}, commit {commit}:\n\n"
            + "```text\n" + text.strip("\n") + "\n```\n")
text = open(out).read()
# The gateway's part (its first line starts "gateway:") has markers of its own, so a run of
# `bench.sh gateway` alone replaces it and leaves the rest.
at = 0 if text.startswith("gateway:") else text.find("\ngateway:") + 1
gateway = text[at:] if at > 0 or text.startswith("gateway:") else ""
if args.split(" ")[0] == "gateway":
    doc = replace(doc, "bench.sh gateway", block(args, gateway))
else:
    main = text[:at] if gateway else text
    body = block(args, main)
    if gateway:
        body += "\n<!-- bench.sh gateway: begin -->\n" + block(args, gateway, "The gateway's figures of ") + "<!-- bench.sh gateway: end -->\n"
    head, rest = doc.split(begin, 1)
    doc = head + begin + body + end + rest.split(end, 1)[1]
open(path, "w").write(doc)
PY
    echo "docs/benchmarks.md: the figures replaced by this run's" >&2
  fi
  rm -f "$out"
  exit 0
fi
if [ "${1:-}" = gateway ]; then
  gateway_bench "${2:-5}" "${BENCH_ROUNDS:-3}"
  exit 0
fi
SECONDS_PER_RUN="${1:-5}"
ROUNDS="${BENCH_ROUNDS:-3}"
BLOAT_VERSION=0.12.1

bash scripts/deps.sh
# Separate builds: with the example in the same build, dev-dependency features (serde_json's
# float_roundtrip) would leak into the measured binary.
cargo build --release --quiet --example bench_stdio
cargo build --release --quiet --bin tinymcp
# An embedder's build: the library alone (the protocol and the transports; the providers are the
# binary's own modules) in a small HTTP server. Its own build too, like the driver's.
cargo build --release --quiet --example http_server
# The stdio-only embedder's (`--no-default-features`: no HTTP transport), in a target folder of its
# own so the builds above keep their features.
cargo build --release --quiet -p tinymcp --no-default-features --example typed_tool --target-dir "${CARGO_TARGET_DIR:-target}/stdio-only"
TARGET=${CARGO_TARGET_DIR:-target}
DRIVER=$TARGET/release/examples/bench_stdio
EMBEDDER=$TARGET/release/examples/http_server
MUSL=x86_64-unknown-linux-musl
if ! rustup target list --installed 2>/dev/null | grep -qx "$MUSL"; then
  echo "adding the Rust target $MUSL (rustup target add $MUSL)" >&2
  rustup target add "$MUSL" >&2
fi
# With `oauth`, ring compiles some C for musl.
. scripts/syspkg.sh
. scripts/lib.sh
use_musl_cc
cargo build --release --quiet --bin tinymcp --target "$MUSL"
# The release build (features `oauth`: JWT signatures and HTTPS, `gateway`, `store`: Redis), for
# its size beside the default's, and `oauth` alone (the difference: what `gateway` and `store` cost);
# in its own target folder so the default build above stays the one measured.
cargo build --release --quiet --bin tinymcp --features oauth --target "$MUSL" --target-dir "$TARGET/oauth"
cargo build --release --quiet --bin tinymcp --features oauth,gateway,store --target "$MUSL" --target-dir "$TARGET/full"
# The counting builds: the same server with a counting allocator, for allocations per call.
for target in "" "$MUSL"; do
  cargo build --release --quiet --manifest-path examples/counting/Cargo.toml --target-dir target/counting \
    ${target:+--target "$target"}
done
KINDS=(glibc static)
declare -A BIN=([glibc]=$TARGET/release/tinymcp [static]=$TARGET/$MUSL/release/tinymcp)
declare -A COUNTING=([glibc]=target/counting/release/tinymcp-counting [static]=target/counting/$MUSL/release/tinymcp-counting)
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
  printf '  %-46s %10s %-4s aim %s %s  %s\n' "$1" "$2" "$5" "$3" "$4" "$verdict"
}
note() { printf '  %-46s %10s %s\n' "$1" "$2" "$3"; }
row() { printf '  %-40s %-20s %-20s %s\n' "$@"; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
mib() { calc "%.2f" "$1 / 1024"; }
highest() { printf '%s\n' "$@" | sort -g | tail -1; }

measure yard startup 5 -- "${YARDSTICK[@]}"
measure yard echo "$SECONDS_PER_RUN" 64 -- "${YARDSTICK[@]}"

# Rounds alternate the builds, so a burst of load elsewhere on the machine hits both; each
# figure is the best round's (fastest start, most calls/s with that round's memory).
for kind in "${KINDS[@]}"; do
  printf -v "${kind}_best_startup" '%s' 1e9
  printf -v "${kind}_best_echo" '%s' 0
done
# The floor under a first answer on this machine: a dynamically linked program that answers at
# once (/bin/echo), spawned and read the same way, best of the same rounds; and a Rust program's,
# the driver itself (`bench_stdio answer`, glibc), which reads the request and answers from a
# second thread.
floor_best=1e9
rust_floor_best=1e9
# The main job's first answer: a folder of 10 000 files (100 folders of 100) served, as a host
# starts it in a project; the watcher's walk of it must not come before the answer.
tree=$(mktemp -d)
for d in $(seq 100); do
  mkdir "$tree/d$d"
  (cd "$tree/d$d" && touch $(seq -f 'f%g.txt' 100))
done
folder_best=1e9
for _ in $(seq "$ROUNDS"); do
  measure m startup 30 -- "${BIN[glibc]}" --root "$tree"
  folder_best=$(awk -v a="$m_startup_median_ms" -v b="$folder_best" 'BEGIN { print (a < b) ? a : b }')
  measure f startup 30 -- /bin/echo '{"jsonrpc":"2.0","id":0,"result":{}}'
  floor_best=$(awk -v a="$f_startup_median_ms" -v b="$floor_best" 'BEGIN { print (a < b) ? a : b }')
  measure f startup 30 -- "$DRIVER" answer
  rust_floor_best=$(awk -v a="$f_startup_median_ms" -v b="$rust_floor_best" 'BEGIN { print (a < b) ? a : b }')
  for kind in "${KINDS[@]}"; do
    measure r startup 30 -- "${BIN[$kind]}" --everything
    measure r echo "$SECONDS_PER_RUN" 64 -- "${BIN[$kind]}" --everything
    best=${kind}_best_startup
    if awk -v a="$r_startup_median_ms" -v b="${!best}" 'BEGIN { exit !(a < b) }'; then
      printf -v "${kind}_best_startup" '%s' "$r_startup_median_ms"
      printf -v "${kind}_startup_p90" '%s' "$r_startup_p90_ms"
    fi
    best=${kind}_best_echo
    if awk -v a="$r_echo_per_s" -v b="${!best}" 'BEGIN { exit !(a > b) }'; then
      printf -v "${kind}_best_echo" '%s' "$r_echo_per_s"
      printf -v "${kind}_idle" '%s' "$r_idle_rss_kib"
      printf -v "${kind}_peak" '%s' "$r_peak_rss_kib"
    fi
  done
done
rm -rf "$tree"
measure sl_count allocs-stateless 20000 -- "${COUNTING[glibc]}"
for kind in "${KINDS[@]}"; do
  measure "${kind}_count" allocs 20000 -- "${COUNTING[$kind]}"
  printf -v "${kind}_size" '%s' "$(stat -c %s "${BIN[$kind]}")"
done

echo
echo "tinymcp $("$TARGET/release/tinymcp" --version | cut -d' ' -f2) on $(nproc) cores, $(uname -m);" \
  "stdio, best of $ROUNDS rounds of $SECONDS_PER_RUN s; yardstick: server-everything on Node $("$NODE" --version)"
row "" "glibc (dynamic)" "static (musl)" "server-everything"
row "first answer, median (p90), ms" "$glibc_best_startup ($glibc_startup_p90)" \
  "$static_best_startup ($static_startup_p90)" "$yard_startup_median_ms"
row "echo calls/s, 64 in flight" "$glibc_best_echo ($(calc "%.1f" "$glibc_best_echo / $yard_echo_per_s")x)" \
  "$static_best_echo ($(calc "%.1f" "$static_best_echo / $yard_echo_per_s")x)" "$yard_echo_per_s"
row "allocations (bytes) per echo call" "$glibc_count_allocs_per_call ($glibc_count_alloc_bytes_per_call B)" \
  "$static_count_allocs_per_call ($static_count_alloc_bytes_per_call B)" ""
row "resident memory idle / peak, MiB" "$(mib "$glibc_idle") / $(mib "$glibc_peak")" \
  "$(mib "$static_idle") / $(mib "$static_peak")" "$(mib "$yard_idle_rss_kib") / $(mib "$yard_peak_rss_kib")"
row "stripped binary, MiB" "$(calc "%.3f" "$glibc_size / 1048576")" "$(calc "%.3f" "$static_size / 1048576")" "(Node)"
echo
# Allocations per call and the stdio stateless/stateful ratio are reported, not aimed at.
note "allocations per echo call" "$glibc_count_allocs_per_call" ""
note "  at 2026-07-28 (no handshake, \`_meta\` on each)" "$sl_count_allocs_per_call" "($sl_count_alloc_bytes_per_call B)"
ratio=$(calc "%.2f" "$static_best_echo / $glibc_best_echo")
aim "static echo/s over glibc echo/s" "$ratio" ">=" 0.8 "x"
for kind in "${KINDS[@]}"; do
  best=${kind}_best_startup echo_rate=${kind}_best_echo idle=${kind}_idle
  aim "$kind: first answer, median" "${!best}" "<" 1 "ms"
  if [ "$kind" = glibc ]; then
    note "  the floor: /bin/echo (dynamic) answering" "$floor_best" "ms"
    note "  a Rust program (dynamic) answering from a thread" "$rust_floor_best" "ms"
    aim "  first answer over that Rust program's" "$(calc "%.2f" "${!best} / $rust_floor_best")" "<=" 1.2 "x"
    note "  serving a folder of 10 000 files (no --everything)" "$folder_best" "ms"
  fi
  aim "$kind: echo/s over the yardstick's" "$(calc "%.1f" "${!echo_rate} / $yard_echo_per_s")" ">=" 3.5 "x"
  limit=2
  [ "$kind" = static ] && limit=2.5
  aim "$kind: idle resident memory" "$(mib "${!idle}")" "<=" "$limit" "MiB"
done
# Revision 2026-07-28 (no handshake, `_meta` on every request) beside the handshake, glibc build,
# rounds alternating the two, each figure the median of its rounds. On two cores a round's rate
# moves by a quarter with how the server's three threads and the driver's two share them,
# whatever the code (back-to-back rounds of one mode land near 180 000 or near 250 000 calls/s;
# pinning the server to one core and the driver to the other moved as much), so the best round
# of each mode picks whichever landed in the fast rhythm: that ratio is printed beside.
hs_rates=() hs_cpus=() sl_rates=() sl_cpus=()
for _ in $(seq "$ROUNDS"); do
  measure r echo "$SECONDS_PER_RUN" 64 -- "${BIN[glibc]}" --everything
  hs_rates+=("$r_echo_per_s") hs_cpus+=("$r_cpu_us_per_call")
  measure r echo-stateless "$SECONDS_PER_RUN" 64 -- "${BIN[glibc]}" --everything
  sl_rates+=("$r_echo_per_s") sl_cpus+=("$r_cpu_us_per_call")
done
note "glibc: echo/s at 2026-07-28 / with the handshake" "$(median "${sl_rates[@]}")" "/ $(median "${hs_rates[@]}") (medians)"
note "  server CPU per call, 2026-07-28 / handshake" "$(median "${sl_cpus[@]}")" "/ $(median "${hs_cpus[@]}") µs"
note "  cost of a stateless call to a stateful one, calls/s" \
  "$(calc "%.2f" "$(median "${hs_rates[@]}") / $(median "${sl_rates[@]}")")" "x"
note "  cost of a stateless call to a stateful one, CPU" \
  "$(calc "%.2f" "$(median "${sl_cpus[@]}") / $(median "${hs_cpus[@]}")")" "x"
note "  the same from the best rounds" "$(calc "%.2f" "$(highest "${hs_rates[@]}") / $(highest "${sl_rates[@]}")")" \
  "x calls/s ($(highest "${sl_rates[@]}") / $(highest "${hs_rates[@]}") echo/s)"
# Sealing and opening one input-required requestState (HMAC-SHA-256 over it, the request and
# an expiry), measured in-process by a release run of the seal_cost test in src/util/seal.rs.
seal_file=$(mktemp)
TINYMCP_SEAL_COST=$seal_file cargo test --release --quiet --lib seal_cost >/dev/null 2>&1
seal=$(cat "$seal_file")
rm -f "$seal_file"
read -r seal_ns open_ns state_bytes <<<"$(echo "$seal" | sed 's/[a-z_]*=//g')"
note "requestState: seal / open, one ${state_bytes}-byte state" "$(calc "%.1f" "$seal_ns / 1000")" "/ $(calc "%.1f" "$open_ns / 1000") µs"
# A session id: minted at initialize, opened by a replica that does not hold the session.
id_file=$(mktemp)
TINYMCP_SESSION_ID_COST=$id_file cargo test --release --quiet --lib session_id_cost >/dev/null 2>&1
read -r mint_ns id_open_ns id_bytes <<<"$(sed 's/[a-z_]*=//g' "$id_file")"
rm -f "$id_file"
note "session id: mint / open, ${id_bytes} bytes" "$(calc "%.1f" "$mint_ns / 1000")" "/ $(calc "%.1f" "$id_open_ns / 1000") µs"
aim "static: stripped binary, every transport" "$(calc "%.3f" "$static_size / 1048576")" "<=" 2.5 "MiB"
note "static with --features oauth" \
  "$(calc "%.3f" "$(stat -c %s "$TARGET/oauth/$MUSL/release/tinymcp") / 1048576")" "MiB stripped"
note "static, the release build (oauth,gateway,store)" \
  "$(calc "%.3f" "$(stat -c %s "$TARGET/full/$MUSL/release/tinymcp") / 1048576")" "MiB stripped"
note "embedder's binary (examples/http_server)" "$(calc "%.3f" "$(stat -c %s "$EMBEDDER") / 1048576")" \
  "MiB stripped, glibc (the library only: no provider)"
note "stdio-only embedder's (examples/typed_tool)" \
  "$(calc "%.3f" "$(stat -c %s "$TARGET/stdio-only/release/examples/typed_tool") / 1048576")" \
  "MiB stripped, glibc (--no-default-features)"

# Size by crate and by module, of the static build (symbols kept for the count, in target/bloat).
if [ ! -x .cache/cargo-bloat/bin/cargo-bloat ]; then
  cargo install --quiet --locked cargo-bloat --version "$BLOAT_VERSION" --root .cache/cargo-bloat >&2 ||
    echo "cargo-bloat could not be installed under .cache/cargo-bloat: size breakdown skipped" >&2
fi
if [ -x .cache/cargo-bloat/bin/cargo-bloat ]; then
  bloat() {
    PATH="$PWD/.cache/cargo-bloat/bin:$PATH" CARGO_TARGET_DIR=target/bloat CARGO_PROFILE_RELEASE_STRIP=false \
      cargo bloat --release --quiet --bin tinymcp --target "$MUSL" "$@"
  }
  echo
  echo "static build by crate (cargo bloat; .text only, before stripping):"
  bloat --crates -n 12 2>/dev/null | grep -v '^$\|^Note\|^ *File' | sed 's/^/  /'
  bloat -n 0 --message-format json 2>/dev/null >target/bloat/functions.json
  echo "static build by module, the 20 largest:"
  python3 scripts/bloat-modules.py target/bloat/functions.json 20
fi

# HTTP (glibc build): keep-alive `echo` with 1 and 16 connections (16: the best of the rounds),
# memory per idle session, 1000 streams held open; the yardstick's Streamable HTTP server
# measured the same way.
port=$(free_port)
"$TARGET/release/tinymcp" --everything --http "127.0.0.1:$port" --max-sessions 3000 2>/dev/null &
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
# 16 connections with the handshake and at 2026-07-28 in alternated rounds, as over stdio: the
# best round of each (most calls/s, with that round's latency and CPU).
many_http_echo_per_s=0 slmany_http_echo_per_s=0
for _ in $(seq "$ROUNDS"); do
  for mode in many slmany; do
    kind=http-echo
    [ "$mode" = slmany ] && kind=http-echo-stateless
    measure r "$kind" "$SECONDS_PER_RUN" 16 -- "$url" "$server"
    best=${mode}_http_echo_per_s
    if awk -v a="$r_http_echo_per_s" -v b="${!best}" 'BEGIN { exit !(a > b) }'; then
      for key in http_echo_per_s http_p50_ms http_p99_ms http_cpu_us_per_call; do
        value=r_$key
        printf -v "${mode}_$key" '%s' "${!value}"
      done
    fi
  done
done
measure sess http-sessions 1000 "$server" -- "$url"
measure streams http-streams 1000 "$server" -- "$url"
# The same 1000 streams held by the static build: a thread per stream, so what its allocator
# keeps per thread shows here.
sport=$(free_port)
"${BIN[static]}" --everything --http "127.0.0.1:$sport" --max-sessions 3000 2>/dev/null &
sserver=$!
trap 'kill $server $yserver $sserver 2>/dev/null' EXIT
wait_port "$sport"
measure sstreams http-streams 1000 "$sserver" -- "http://127.0.0.1:$sport/mcp"
kill "$sserver" 2>/dev/null
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
note "  server CPU per call, 2026-07-28 / handshake" "$slmany_http_cpu_us_per_call" "/ $many_http_cpu_us_per_call µs"
aim "  cost of a stateless call to a stateful one, calls/s" "$(calc "%.2f" "$many_http_echo_per_s / $slmany_http_echo_per_s")" "<=" 1.1 "x"
aim "  cost of a stateless call to a stateful one, CPU" "$(calc "%.2f" "$slmany_http_cpu_us_per_call / $many_http_cpu_us_per_call")" "<=" 1.1 "x"
note "  ratio to the yardstick" "$(awk -v a="$many_http_echo_per_s" -v b="$ymany_http_echo_per_s" 'BEGIN { printf "%.1f", a / b }')" "x"
aim "resident memory per idle session (1000)" "$sess_session_rss_kib_each" "<" 16 "KiB"
note "1000 GET streams held open: opened in" "$streams_streams_open_s" "s, ${streams_stream_rss_kib_each} KiB and ${streams_stream_threads_each} threads each"
note "  one list_changed reaching all of them" "$streams_broadcast_ms" "ms (${streams_broadcast_reached} reached)"
note "  the static build's, KiB each" "$sstreams_stream_rss_kib_each" "KiB"
aim "  static over glibc, memory per stream" "$(calc "%.2f" "$sstreams_stream_rss_kib_each / $streams_stream_rss_kib_each")" "<=" 1.5 "x"
# The hot-path cost of `--metrics` (aim: 3% or less of CPU per call), same run, alternated.
echo
BENCH_ROUNDS=$ROUNDS bash "$0" metrics "$SECONDS_PER_RUN"
# The store's cost: a task round-trip and a notification fan-out, with it against without.
bash "$0" store "$SECONDS_PER_RUN"
# The proxy beside supergateway: 10 s runs, since each session starts its own Node child.
bash scripts/bench-proxy.sh
# The gateway in front of the same server, beside a direct connection; its tool list's size.
echo
gateway_bench "$SECONDS_PER_RUN" "$ROUNDS"
