#!/usr/bin/env bash
# Sourced by the test and bench scripts (`. scripts/lib.sh` from the repository root): the helpers
# they share, written once. (Installing a missing Debian package is scripts/syspkg.sh.)

# A part that cannot run here exits with this code after one line saying why; scripts/test.sh
# lists the part as `skipped`, not `ok` (77 is the code automake's test harness reads as skipped).
SKIPPED=77

# skip WHAT REASON...: says "WHAT skipped: REASON" and ends the script as skipped.
skip() {
  local what=$1
  shift
  echo "$what skipped: $*"
  exit "$SKIPPED"
}

# free_port: a loopback port that is free now (the OS picks it; it is bound, then released).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_port PORT [SECONDS]: returns once something accepts connections on 127.0.0.1:PORT, polled
# every 50 ms; after SECONDS (default 10) it says so and fails.
wait_port() {
  local port=$1 seconds=${2:-10}
  for _ in $(seq $((seconds * 20))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "nothing accepts connections on 127.0.0.1:$port after ${seconds} s" >&2
  return 1
}

# check_static BIN: fails, naming what BIN loads, unless it is statically linked (no interpreter,
# no NEEDED entry).
check_static() {
  if readelf -lW "$1" | grep -q INTERP || readelf -dW "$1" | grep -q '(NEEDED)'; then
    echo "$1 is dynamically linked:" >&2
    readelf -dW "$1" | grep '(NEEDED)' >&2 || true
    return 1
  fi
}

# conformance_run LABEL LOG URL ARGS...: one run of the official conformance suite (pinned in
# scripts/deps.sh, under .cache/) against the MCP endpoint URL, its whole output in LOG. Prints
# "LABEL: " and the suite's `Total:` line; when the suite exits non-zero or, without
# `--expected-failures`, a scenario failed, prints the failing checks and fails.
conformance_run() {
  local label=$1 log=$2 url=$3 rc=0 total
  shift 3
  .cache/npm/node_modules/.bin/node .cache/npm/node_modules/.bin/conformance server --url "$url" "$@" >"$log" 2>&1 || rc=$?
  total=$(grep -E '^Total: ' "$log" | tail -1)
  echo "$label: ${total:-no summary} (exit $rc)"
  if [ "$rc" = 0 ] && { [[ " $* " == *" --expected-failures "* ]] || grep -qE '^Total: [0-9]+ passed, 0 failed' <<<"$total"; }; then
    return 0
  fi
  sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^✗|FAIL|Unexpected|Stale|  ✗' | head -40 || tail -40 "$log"
  return 1
}

# The release binary's cargo arguments, the same in every script (scripts/release.sh,
# scripts/build-static.sh, the test scripts), so each build reuses the one before instead of
# compiling the workspace again for another feature set.
RELEASE_CARGO=(--release --locked --quiet --features oauth,gateway,store -p tinymcp-cli --bin tinymcp)

# release_binary: prints the absolute path of the binary the test scripts run: $TINYMCP_BIN when
# set (scripts/test.sh sets it to the static musl build it checked, so the interop parts test what
# ships), else this machine's release build, built first.
release_binary() {
  if [ -n "${TINYMCP_BIN:-}" ]; then
    realpath "$TINYMCP_BIN"
    return
  fi
  cargo build "${RELEASE_CARGO[@]}" >&2
  realpath "${CARGO_TARGET_DIR:-target}/release/tinymcp"
}
