#!/usr/bin/env bash
# Prints the figures we hold ourselves to, measured on this machine in one run, beside the
# yardstick @modelcontextprotocol/server-everything (Node) driven the same way.
# Figures, not tests: nothing here fails on a slow machine. Usage: scripts/bench.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN="${1:-5}"

bash scripts/deps.sh
# Two builds: with the example in the same build, dev-dependency features (serde_json's
# float_roundtrip) would leak into the measured binary.
cargo build --release --quiet --example bench_stdio
cargo build --release --quiet --bin tinymcp
DRIVER=target/release/examples/bench_stdio
# The figures are for the static musl binary we ship when this toolchain can build it (rustup
# fetches the target once); otherwise for the glibc build, said so in the output.
MUSL=x86_64-unknown-linux-musl
if rustup target list --installed 2>/dev/null | grep -qx "$MUSL" || rustup target add "$MUSL" >/dev/null 2>&1; then
  cargo build --release --quiet --bin tinymcp --target "$MUSL"
  BIN=target/$MUSL/release/tinymcp
  KIND="static musl"
else
  BIN=target/release/tinymcp
  KIND="dynamic glibc (no musl target here)"
fi
OURS=("$BIN" --everything)
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

measure ours startup 50 -- "${OURS[@]}"
measure ours echo "$SECONDS_PER_RUN" 64 -- "${OURS[@]}"
measure yard startup 5 -- "${YARDSTICK[@]}"
measure yard echo "$SECONDS_PER_RUN" 64 -- "${YARDSTICK[@]}"
size=$(stat -c %s "$BIN")
glibc_size=$(stat -c %s target/release/tinymcp)

ratio=$(awk -v a="$ours_echo_per_s" -v b="$yard_echo_per_s" 'BEGIN { printf "%.1f", a / b }')
startup_ratio=$(awk -v a="$yard_startup_median_ms" -v b="$ours_startup_median_ms" 'BEGIN { printf "%.0f", a / b }')
kib() { awk -v k="$1" 'BEGIN { printf "%.2f", k / 1024 }'; }

echo
echo "tinymcp $("$BIN" --version | cut -d' ' -f2), $KIND build, on $(nproc) cores, $(uname -m); yardstick: server-everything on Node $("$NODE" --version)"
echo
echo "stdio"
aim "spawn to initialize answer, median" "$ours_startup_median_ms" "<" 1 "ms"
printf '  %-44s %12s ms     (yardstick %s ms, %sx)\n' "spawn to initialize answer, p90" "$ours_startup_p90_ms" "$yard_startup_median_ms" "$startup_ratio"
aim "echo calls/s, 64 in flight" "$ours_echo_per_s" ">=" 100000 "/s"
aim "  ratio to yardstick ($yard_echo_per_s/s)" "$ratio" ">=" 3.5 "x"
aim "idle resident memory (VmRSS)" "$(kib "$ours_idle_rss_kib")" "<" 2 "MiB"
printf '  %-44s %12s MiB    (yardstick idle %s MiB, peak %s MiB)\n' "peak resident memory under load (VmHWM)" \
  "$(kib "$ours_peak_rss_kib")" "$(kib "$yard_idle_rss_kib")" "$(kib "$yard_peak_rss_kib")"
mib() { awk -v s="$1" 'BEGIN { printf "%.3f", s / 1048576 }'; }
aim "stripped release binary ($KIND)" "$(mib "$size")" "<" 1 "MiB"
printf '  %-44s %12s MiB\n' "stripped release binary (dynamic glibc)" "$(mib "$glibc_size")"
