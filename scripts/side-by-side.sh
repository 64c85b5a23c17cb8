#!/usr/bin/env bash
# The same MCP server written with tinymcp's typed API (examples/side_by_side.rs) and with rmcp's
# macros (scripts/side-by-side/rmcp.rs): three tools (arithmetic with structured output, a file
# reader that reports progress, a confirmation by elicitation), a prompt and a resource
# template, over stdio. Each is built as a crate of its own outside the repository, as an
# embedder would, with the same release profile (tinymcp's: LTO, one codegen unit, opt-level
# "s", stripped).
#
# First both must be the same server: one session of the official Python SDK client
# (scripts/side-by-side/session.py: initialize, tools/list, each tool with its progress and
# elicitation round trips, prompts/get, resources/read of a template URI) against each, and what
# the client saw must be the same (else exit 1). Then it prints: lines of code (both sources
# formatted by rustfmt with the repository's rustfmt.toml, then the lines neither blank nor
# comments, `//`, `///` and `//!` alike), compile time from clean (dependencies downloaded
# first, not counted; wall and CPU time; the two builds alternate, ROUNDS times each, so they
# share whatever load the machine has, and the fastest of each is printed), the load average,
# the stripped binary's size, and the first answer (spawn to `initialize` answer, by
# examples/bench_stdio as in scripts/bench.sh: STARTS batches of 30 each, default 5, the two
# alternating; the median of the batches' medians and of their p90s). Figures, not tests.
#
# Usage: scripts/side-by-side.sh (SIDE_BY_SIDE_DIR: where the crates go, default
# $TMPDIR/tinymcp-side-by-side; RMCP_VERSION: default 3.11.0, the one measured in
# docs/embedding.md; ROUNDS: builds of each, default 2; PYTHON: default .cache/venv/bin/python,
# which scripts/deps.sh installs).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=${SIDE_BY_SIDE_DIR:-${TMPDIR:-/tmp}/tinymcp-side-by-side}
rmcp_version=${RMCP_VERSION:-3.11.0}
rounds=${ROUNDS:-2}
python=${PYTHON:-.cache/venv/bin/python}
profile='[profile.release]
lto = true
codegen-units = 1
strip = true
opt-level = "s"'
declare -A source=([tinymcp]=examples/side_by_side.rs [rmcp]=scripts/side-by-side/rmcp.rs)

# make NAME DEPENDENCIES: a fresh crate NAME-side-by-side under $work, its main the server.
make() {
  local dir=$work/$1
  rm -rf "$dir"
  mkdir -p "$dir/src"
  cp "${source[$1]}" "$dir/src/main.rs"
  printf '[package]\nname = "%s-side-by-side"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n%s\n\n%s\n\n[workspace]\n' \
    "$1" "$2" "$profile" >"$dir/Cargo.toml"
  (cd "$dir" && cargo fetch --quiet)
}
common='serde = { version = "1", features = ["derive"] }
schemars = "1"'
make tinymcp "tinymcp = { path = \"$repo\", default-features = false, features = [\"schemars\"] }
$common"
make rmcp "rmcp = { version = \"=$rmcp_version\", features = [\"transport-io\", \"elicitation\"] }
tokio = { version = \"1\", features = [\"macros\", \"rt\", \"io-std\", \"fs\", \"io-util\"] }
$common"

cargo build --release --quiet --example bench_stdio
driver=${CARGO_TARGET_DIR:-target}/release/examples/bench_stdio

# Builds from clean, alternating; the fastest wall and CPU time of each.
declare -A wall cpu
TIMEFORMAT='%R %U %S'
for round in $(seq "$rounds"); do
  for name in tinymcp rmcp; do
    dir=$work/$name
    rm -rf "$dir/target"
    read -r w user sys < <({ time cargo build --release --quiet --manifest-path "$dir/Cargo.toml" \
      --target-dir "$dir/target" 2>/dev/null; } 2>&1)
    c=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
    echo "build $round of $name: ${w}s wall, ${c}s CPU (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    if [ -z "${wall[$name]:-}" ] || awk -v a="$w" -v b="${wall[$name]}" 'BEGIN { exit !(a < b) }'; then wall[$name]=$w; fi
    if [ -z "${cpu[$name]:-}" ] || awk -v a="$c" -v b="${cpu[$name]}" 'BEGIN { exit !(a < b) }'; then cpu[$name]=$c; fi
  done
done

# The same session against both: what the client saw must not differ.
seq 1 2000 >"$work/numbers.txt" # 8893 bytes: three chunks of progress
for name in tinymcp rmcp; do
  "$python" scripts/side-by-side/session.py "$work/$name/target/release/$name-side-by-side" "$work/numbers.txt" \
    >"$work/$name.session.json"
done
if ! cmp -s "$work/tinymcp.session.json" "$work/rmcp.session.json"; then
  diff "$work/tinymcp.session.json" "$work/rmcp.session.json" >&2 || true
  echo "the two servers answered the same session differently (above)" >&2
  exit 1
fi
echo "same session, same answers ($(grep -c . "$work/tinymcp.session.json") lines of what the client saw)" >&2

# The first answer: batches of 30 starts, alternating between the two, STARTS times each; the
# median of the batches' medians (and of their p90s), which a load that comes and goes skews less.
declare -A medians p90s
for batch in $(seq "${STARTS:-5}"); do
  for name in tinymcp rmcp; do
    while IFS='=' read -r key value; do printf -v "m_$key" '%s' "$value"; done \
      < <("$driver" startup 30 -- "$work/$name/target/release/$name-side-by-side")
    medians[$name]+="$m_startup_median_ms "
    p90s[$name]+="$m_startup_p90_ms "
  done
done
middle() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-8s %6s %20s %10s %24s\n' "" lines "build, s (CPU, s)" "size, MiB" "first answer, ms (p90)"
for name in tinymcp rmcp; do
  bin=$work/$name/target/release/$name-side-by-side
  echo "first answers of $name, medians of each batch: ${medians[$name]}" >&2
  m_startup_median_ms=$(middle <<<"${medians[$name]}")
  m_startup_p90_ms=$(middle <<<"${p90s[$name]}")
  lines=$(rustfmt --edition 2021 --config-path rustfmt.toml --emit stdout "${source[$name]}" 2>/dev/null |
    tail -n +2 | grep -cvE '^\s*(//.*)?$')
  printf '%-8s %6s %20s %10s %24s\n' "$name" "$lines" "${wall[$name]} (${cpu[$name]})" \
    "$(awk -v s="$(stat -c %s "$bin")" 'BEGIN { printf "%.3f", s / 1048576 }')" "$m_startup_median_ms ($m_startup_p90_ms)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
