#!/usr/bin/env bash
# Builds the static binaries: x86_64-unknown-linux-musl always, aarch64-unknown-linux-musl when
# that Rust target and a linker for it are present. Each is checked to be statically linked (no
# interpreter, no shared library needed), its size printed, and the stdio interop run against it
# where this machine can execute it.
# Usage: scripts/build-static.sh [--no-interop] [--only x86_64]
#   --no-interop: no interop run (scripts/test.sh runs all of its interop against the x86_64 build)
#   --only x86_64: not the aarch64 build (the test command's choice: scripts/release.sh and the
#   release workflow build it; here it would be minutes of cross compilation for a binary no test runs)
set -euo pipefail
cd "$(dirname "$0")/.."
interop=1 only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-interop) interop=0 ;;
    --only)
      [ "${2:-}" = x86_64 ] || { echo "build-static: --only takes x86_64" >&2; exit 2; }
      only=x86_64
      shift
      ;;
    *) echo "usage: scripts/build-static.sh [--no-interop] [--only x86_64]" >&2; exit 2 ;;
  esac
  shift
done

has_target() { rustup target list --installed 2>/dev/null | grep -qx "$1"; }

# Fails unless $1 loads no shared library: no PT_INTERP, no DT_NEEDED (a static-pie keeps a
# DYNAMIC segment for its own relocations, which is fine).

size_line() {
  local bytes
  bytes=$(stat -c %s "$1")
  awk -v b="$bytes" -v f="$1" 'BEGIN { printf "size: %s is %d bytes (%.2f MiB), stripped\n", f, b, b / 1048576 }'
}

stdio_interop() {
  local bin=$1
  bash scripts/deps.sh
  echo "interop: Python SDK client over stdio against $bin"
  .cache/venv/bin/python tests/interop/python_client.py --transport stdio -- "$bin" --everything
  echo "interop: Python SDK client on a temporary folder and manifest against $bin"
  .cache/venv/bin/python tests/interop/python_files.py -- "$bin"
  echo "interop: TypeScript SDK client over stdio against $bin"
  .cache/npm/node_modules/.bin/node tests/interop/ts_client.mjs --transport stdio -- "$bin" --everything
}

# x86_64: add the target when missing, and say so.
X86=x86_64-unknown-linux-musl
if ! has_target "$X86"; then
  echo "the Rust target $X86 is missing: adding it (rustup target add $X86)"
  rustup target add "$X86"
fi
# Some of ring, the TLS backend of the release binary's OAuth and of `connect https://`
# (`--features oauth`, which turns on `https`), is C:
# musl-gcc compiles it (scripts/syspkg.sh).
. scripts/syspkg.sh
. scripts/lib.sh
use_musl_cc
cargo build "${RELEASE_CARGO[@]}" --target "$X86"
bin=${CARGO_TARGET_DIR:-target}/$X86/release/tinymcp
check_static "$bin"
echo "statically linked: $bin"
size_line "$bin"
if [ "$(uname -m)" = x86_64 ] && [ "$interop" = 1 ]; then
  stdio_interop "$bin"
fi

# aarch64: only when both the target and a cross linker are already there.
[ "$only" = x86_64 ] && exit 0
ARM=aarch64-unknown-linux-musl
linker=""
for candidate in aarch64-linux-musl-gcc aarch64-linux-gnu-gcc; do
  if command -v "$candidate" >/dev/null 2>&1; then
    linker=$candidate
    break
  fi
done
if ! has_target "$ARM" || [ -z "$linker" ]; then
  echo "skipped $ARM: needs the Rust target (rustup target add $ARM) and a linker (aarch64-linux-musl-gcc or aarch64-linux-gnu-gcc)"
  exit 0
fi
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=$linker CC_aarch64_unknown_linux_musl=$linker \
  cargo build "${RELEASE_CARGO[@]}" --target "$ARM"
bin=${CARGO_TARGET_DIR:-target}/$ARM/release/tinymcp
check_static "$bin"
echo "statically linked: $bin"
size_line "$bin"
if [ "$(uname -m)" != aarch64 ]; then
  echo "skipped the interop for $ARM: this is not an aarch64 machine"
elif [ "$interop" = 1 ]; then
  stdio_interop "$bin"
fi
