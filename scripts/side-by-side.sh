#!/usr/bin/env bash
# The same MCP server written with tinymcp's typed API and with rmcp's macros
# (scripts/side-by-side/{tinymcp,rmcp}.rs: the temperature tool, typed arguments, structured
# output, a tool error), each built as a crate of its own outside the repository, as an
# embedder would, with the same release profile (tinymcp's: LTO, one codegen unit, opt-level
# "s", stripped). Prints lines of code (not blank, not comments), compile time from clean
# (dependencies downloaded first, not counted; wall and CPU time), the load average it ran under, stripped binary size, and the first answer
# (spawn to `initialize` answer, median and p90 of 30, by examples/bench_stdio as in
# scripts/bench.sh), after checking each answers the same tools/call. Figures, not tests.
# Usage: scripts/side-by-side.sh (SIDE_BY_SIDE_DIR: where the crates go, default
# $TMPDIR/tinymcp-side-by-side; RMCP_VERSION: default 3.11.0, the one measured in docs/embedding.md).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=${SIDE_BY_SIDE_DIR:-${TMPDIR:-/tmp}/tinymcp-side-by-side}
rmcp_version=${RMCP_VERSION:-3.11.0}
profile='[profile.release]
lto = true
codegen-units = 1
strip = true
opt-level = "s"'

# make NAME DEPENDENCIES: a fresh crate NAME-temperature under $work, its main the server.
make() {
  local dir=$work/$1
  rm -rf "$dir"
  mkdir -p "$dir/src"
  cp "scripts/side-by-side/$1.rs" "$dir/src/main.rs"
  printf '[package]\nname = "%s-temperature"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n%s\n\n%s\n\n[workspace]\n' \
    "$1" "$2" "$profile" >"$dir/Cargo.toml"
}
common='serde = { version = "1", features = ["derive"] }
schemars = "1"'
make tinymcp "tinymcp = { path = \"$repo\", default-features = false, features = [\"schemars\"] }
$common"
make rmcp "rmcp = { version = \"=$rmcp_version\", features = [\"transport-io\"] }
tokio = { version = \"1\", features = [\"macros\", \"rt\", \"io-std\"] }
$common"

cargo build --release --quiet --example bench_stdio
driver=${CARGO_TARGET_DIR:-target}/release/examples/bench_stdio

# The answer a client sees to one call, to check both servers are the same server.
call='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"to_fahrenheit","arguments":{"celsius":21.5,"round":true}}}'

printf '%-8s %6s %20s %10s %24s\n' "" lines "build, s (CPU, s)" "size, MiB" "first answer, ms (p90)"
for name in tinymcp rmcp; do
  dir=$work/$name
  (cd "$dir" && cargo fetch --quiet)
  # Wall time, and CPU time (user + system of the compilers), which a loaded machine skews less.
  TIMEFORMAT='%R %U %S'
  read -r wall user sys < <({ time cargo build --release --quiet --manifest-path "$dir/Cargo.toml" \
    --target-dir "$dir/target" 2>/dev/null; } 2>&1)
  bin=$dir/target/release/$name-temperature
  coproc server { "$bin" 2>/dev/null; }
  printf '%s\n' "$call" >&"${server[1]}"
  answer=
  while IFS= read -r -t 10 line <&"${server[0]}"; do
    case $line in *'"id":2'*) answer=$line && break ;; esac
  done
  kill "$server_PID" 2>/dev/null || true
  wait "$server_PID" 2>/dev/null || true
  case $answer in
    *'"structuredContent":{"fahrenheit":71.0}'*) ;;
    *) echo "$name: unexpected answer to tools/call: $answer" >&2; exit 1 ;;
  esac
  while IFS='=' read -r key value; do printf -v "m_$key" '%s' "$value"; done < <("$driver" startup 30 -- "$bin")
  lines=$(grep -cvE '^\s*(//.*)?$' "scripts/side-by-side/$name.rs")
  printf '%-8s %6s %20s %10s %24s\n' "$name" "$lines" "$wall ($(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }'))" \
    "$(awk -v s="$(stat -c %s "$bin")" 'BEGIN { printf "%.3f", s / 1048576 }')" "$m_startup_median_ms ($m_startup_p90_ms)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
