#!/usr/bin/env bash
# Builds what a release ships, into dist/, from one command here (Linux x86_64):
#   tinymcp-x86_64-unknown-linux-musl      static, checked to load no shared library, smoke-tested over stdio
#   tinymcp-aarch64-unknown-linux-musl     static (Debian's gcc-aarch64-linux-gnu links it), checked by readelf and `file`
#   tinymcp-x86_64-apple-darwin            cargo-zigbuild; checked by `file` (format, architecture)
#   tinymcp-aarch64-apple-darwin           the same
#   tinymcp-x86_64-pc-windows-gnu.exe      Debian's mingw-w64; smoke-tested under Wine (initialize over stdio)
#   tinymcp-aarch64-pc-windows-gnullvm.exe cargo-zigbuild (zig's mingw and LLVM libunwind); checked by `file`
# all with OAuth (ring's C and assembly compiled by zig cc for the zig-built ones) and stripped by
# the release profile. Then one MCP bundle per CPU architecture, tinymcp-ARCH.mcpb, holding that
# architecture's Linux and Windows binaries and the universal macOS one (the MCPB manifest picks an
# entry by OS only: scripts/mcpb-manifest.py), validated and packed by the official MCPB CLI, and
# each platform's entry resolved by the MCPB library as a host does and checked (scripts/check-mcpb.mjs);
# dist/server.json with the x86_64 bundle's SHA-256; the npm and PyPI packages when
# scripts/packages.sh exists; and SHA256SUMS over everything in dist/.
#
# Usage: scripts/release.sh [--only x86_64]
#   --only x86_64: the Linux x86_64 binary and its bundle alone (what the test command and CI run:
#   no cross build), plus a validation of the three-OS manifest.
#
# Tools: Rust targets from rustup; zig and cargo-zigbuild from PyPI into .cache/zig
# (`scripts/deps.sh zig`); gcc-aarch64-linux-gnu, mingw-w64, wine and musl-tools from Debian when missing (scripts/syspkg.sh,
# with TINYMCP_INSTALL_PACKAGES=1 as in CI; otherwise the line says what to install).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}
DIST=dist
only=""
case "${1:-}" in
  "") ;;
  --only)
    [ "${2:-}" = x86_64 ] || { echo "release: --only takes x86_64 (the Linux x86_64 build alone)" >&2; exit 2; }
    only=x86_64
    ;;
  *) echo "usage: scripts/release.sh [--only x86_64]" >&2; exit 2 ;;
esac
. scripts/syspkg.sh
. scripts/lib.sh
started=$(date +%s)

rm -rf "$DIST"
mkdir -p "$DIST"

# need_target T: the Rust standard library for T, from rustup.
need_target() {
  rustup target list --installed | grep -qx "$1" && return 0
  rustup target add "$1" >&2 || { echo "release: the Rust target $1 is missing and rustup could not add it" >&2; return 1; }
}
# expect_file FILE PATTERN: `file` says FILE is PATTERN (an extended regexp), or the release fails.
expect_file() {
  local what
  what=$(file -b "$1")
  grep -Eq "$2" <<<"$what" || { echo "release: $1 is \"$what\", not /$2/" >&2; return 1; }
  echo "release: $1: $what"
}
# The features of every release binary (`oauth` turns on `https`: `tinymcp connect https://…`;
# `gateway`: `tinymcp gateway`; `store`: `--store redis://…`).
BUILD=("${RELEASE_CARGO[@]}") # scripts/lib.sh

X86=x86_64-unknown-linux-musl
need_target "$X86"
# ring (feature `oauth`) compiles some C: musl-gcc (scripts/syspkg.sh).
use_musl_cc
cargo build "${BUILD[@]}" --target "$X86"
check_static "$TARGET/$X86/release/tinymcp"
cp "$TARGET/$X86/release/tinymcp" "$DIST/tinymcp-$X86"

# The smoke test: the x86_64 binary answers a 2026-07-28 tools/call over stdio (no handshake).
request='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"release"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
answer=$(echo "$request" | "$DIST/tinymcp-$X86" --everything 2>/dev/null)
grep -q '"text":"Echo: release"' <<<"$answer" || {
  echo "release: the smoke test failed: $answer" >&2
  exit 1
}
# The handshake a host sends first, for the bundle's and Wine's checks below.
initialize='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"release","version":"0"}}}'

if [ -z "$only" ]; then
  # The cross builds through zig: macOS (no SDK here: zig carries the libSystem stubs a
  # command-line program links) and Windows aarch64.
  bash scripts/deps.sh zig
  export PATH="$PWD/.cache/zig/bin:$PATH" # cargo-zigbuild, and the venv's python3 that runs `-m ziglang`
  for t in aarch64-unknown-linux-musl x86_64-apple-darwin aarch64-apple-darwin aarch64-pc-windows-gnullvm; do
    need_target "$t"
  done
  # Linux aarch64 with a gcc cross linker, not zig: the static binary's packed relocations
  # (`-z pack-relative-relocs`, crates/tinymcp-cli/build.rs) are a flag zig's linker refuses.
  arm_cc=aarch64-linux-musl-gcc
  command -v "$arm_cc" >/dev/null 2>&1 || { need_command aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu && arm_cc=aarch64-linux-gnu-gcc; }
  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=$arm_cc CC_aarch64_unknown_linux_musl=$arm_cc \
    cargo build "${BUILD[@]}" --target aarch64-unknown-linux-musl
  # universal2-apple-darwin: both macOS targets, then cargo-zigbuild joins them in one fat binary
  # (the bundle's macOS entry). rustc asks xcrun for a macOS SDK and warns that there is none;
  # zig links without one (it carries the stubs of libSystem), so that warning is left out.
  cargo zigbuild "${BUILD[@]}" --target universal2-apple-darwin 2>&1 |
    { grep -v -e xcrun -e 'the SDK is needed' -e 'pass the path of an Xcode' -e '^ *|$' -e '^ *= ' -e '^$' || true; } >&2
  cargo zigbuild "${BUILD[@]}" --target aarch64-pc-windows-gnullvm
  need_command x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64
  need_target x86_64-pc-windows-gnu
  cargo build "${BUILD[@]}" --target x86_64-pc-windows-gnu

  check_static "$TARGET/aarch64-unknown-linux-musl/release/tinymcp"
  cp "$TARGET/aarch64-unknown-linux-musl/release/tinymcp" "$DIST/tinymcp-aarch64-unknown-linux-musl"
  for t in x86_64-apple-darwin aarch64-apple-darwin; do
    cp "$TARGET/$t/release/tinymcp" "$DIST/tinymcp-$t"
  done
  cp "$TARGET/x86_64-pc-windows-gnu/release/tinymcp.exe" "$DIST/tinymcp-x86_64-pc-windows-gnu.exe"
  cp "$TARGET/aarch64-pc-windows-gnullvm/release/tinymcp.exe" "$DIST/tinymcp-aarch64-pc-windows-gnullvm.exe"
  universal="$TARGET/universal2-apple-darwin/release/tinymcp"

  # What cannot run here is checked for format and architecture.
  expect_file "$DIST/tinymcp-aarch64-unknown-linux-musl" '^ELF 64-bit LSB .*ARM aarch64.*static'
  expect_file "$DIST/tinymcp-x86_64-apple-darwin" '^Mach-O 64-bit x86_64 executable'
  expect_file "$DIST/tinymcp-aarch64-apple-darwin" '^Mach-O 64-bit arm64 executable'
  expect_file "$universal" '^Mach-O universal binary with 2 architectures: \[x86_64.*\] \[.*arm64'
  expect_file "$DIST/tinymcp-x86_64-pc-windows-gnu.exe" '^PE32\+ executable \(console\) x86-64'
  expect_file "$DIST/tinymcp-aarch64-pc-windows-gnullvm.exe" '^PE32\+ executable \(console\) Aarch64'

  # The Windows x86_64 binary under Wine (scripts/wine.sh: our own prefix, with the DLL stub
  # Debian 12's Wine lacks): it answers initialize over stdio.
  need_command wine wine
  . scripts/wine.sh
  wine_prefix
  trap 'wineserver -k 2>/dev/null || true' EXIT
  answer=$(echo "$initialize" | wine "$DIST/tinymcp-x86_64-pc-windows-gnu.exe" --everything 2>/dev/null | tr -d '\r')
  grep -q '"serverInfo":{"name":"tinymcp"' <<<"$answer" || {
    echo "release: the Windows binary under Wine did not answer initialize: $answer" >&2
    exit 1
  }
  echo "release: the Windows x86_64 binary answered initialize under Wine"
fi

# The bundles: one per CPU architecture (see scripts/mcpb-manifest.py), checked and packed by
# `mcpb`, then unpacked and each platform's entry resolved as a host does (check-mcpb.mjs).
bash scripts/deps.sh
export PATH="$PWD/.cache/npm/node_modules/.bin:$PATH" # Node 22 for the MCPB CLI
MCPB=$PWD/.cache/release/node_modules/.bin/mcpb
export MCPB_MODULE=$PWD/.cache/release/node_modules/@anthropic-ai/mcpb/dist/index.js
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; [ -n "${WINEPREFIX:-}" ] && wineserver -k 2>/dev/null || true' EXIT
archs=(x86_64)
[ -z "$only" ] && archs+=(aarch64)
for arch in "${archs[@]}"; do
  stage=$scratch/stage-$arch
  mkdir -p "$stage/server"
  platforms=(linux)
  cp "$DIST/tinymcp-$arch-unknown-linux-musl" "$stage/server/tinymcp"
  if [ -z "$only" ]; then
    platforms+=(darwin win32)
    cp "$universal" "$stage/server/tinymcp-darwin"
    windows=x86_64-pc-windows-gnu
    [ "$arch" = aarch64 ] && windows=aarch64-pc-windows-gnullvm
    cp "$DIST/tinymcp-$windows.exe" "$stage/server/tinymcp.exe"
  fi
  python3 scripts/mcpb-manifest.py "$version" "$arch" "${platforms[@]}" >"$stage/manifest.json"
  "$MCPB" validate "$stage/manifest.json" >/dev/null
  "$MCPB" pack "$stage" "$DIST/tinymcp-$arch.mcpb" >/dev/null

  unpacked=$scratch/unpacked-$arch
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$DIST/tinymcp-$arch.mcpb" "$unpacked"
  mkdir -p "$scratch/root" && echo "a file to serve" >"$scratch/root/hello.txt"
  entries=$(node scripts/check-mcpb.mjs "$unpacked" "$scratch/root")
  [ "$(cut -f1 <<<"$entries" | sort | tr '\n' ' ')" = "$(printf '%s\n' "${platforms[@]}" | sort | tr '\n' ' ')" ] || {
    echo "release: tinymcp-$arch.mcpb resolves entries for $(cut -f1 <<<"$entries" | tr '\n' ' '), not for ${platforms[*]}" >&2
    exit 1
  }
  while IFS=$'\t' read -r platform command args; do
    case "$platform/$arch" in
      linux/x86_64) pattern='^ELF 64-bit LSB .*x86-64.*static' ;;
      linux/aarch64) pattern='^ELF 64-bit LSB .*ARM aarch64.*static' ;;
      darwin/*) pattern='^Mach-O universal binary with 2 architectures: \[x86_64.*\] \[.*arm64' ;;
      win32/x86_64) pattern='^PE32\+ executable \(console\) x86-64' ;;
      win32/aarch64) pattern='^PE32\+ executable \(console\) Aarch64' ;;
    esac
    expect_file "$command" "$pattern" >/dev/null
    echo "release: tinymcp-$arch.mcpb on $platform starts ${command#"$unpacked"/} $args"
  done <<<"$entries"
  # The Linux x86_64 entry started as the host would (the bundle's file, the resolved arguments):
  # it answers initialize and serves the folder the user picked.
  if [ "$arch" = x86_64 ]; then
    IFS=$'\t' read -r _ command args < <(grep '^linux' <<<"$entries")
    chmod +x "$command"
    mapfile -t argv < <(python3 -c 'import json, sys; print("\n".join(json.loads(sys.argv[1])))' "$args")
    list='{"jsonrpc":"2.0","id":2,"method":"resources/list","params":{}}'
    answer=$(printf '%s\n%s\n%s\n' "$initialize" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$list" | "$command" "${argv[@]}" 2>/dev/null)
    grep -q '"serverInfo":{"name":"tinymcp"' <<<"$answer" && grep -q 'hello.txt' <<<"$answer" || {
      echo "release: the bundle's Linux entry, started as a host would, did not serve the folder: $answer" >&2
      exit 1
    }
  fi
done
if [ -n "$only" ]; then
  # No cross build here, but the three-OS manifest of the full release is still the CLI's to judge.
  python3 scripts/mcpb-manifest.py "$version" x86_64 linux darwin win32 >"$scratch/manifest.json"
  "$MCPB" validate "$scratch/manifest.json" >/dev/null
fi

# server.json for the registry, with the x86_64 bundle's real SHA-256.
python3 - "$DIST/tinymcp-x86_64.mcpb" >"$DIST/server.json" <<'PY'
import hashlib, json, sys
server = json.load(open("server.json"))
digest = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
for package in server["packages"]:
    if package["registryType"] == "mcpb":
        package["fileSha256"] = digest
print(json.dumps(server, indent=2))
PY

# The npm and PyPI packages, made from the binaries in dist/ (another script's work).
if [ -f scripts/packages.sh ]; then
  bash scripts/packages.sh "$DIST"
fi

(cd "$DIST" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%P\n' | sort | xargs -d '\n' sha256sum >SHA256SUMS)
for file in "$DIST"/tinymcp-*; do
  [ -f "$file" ] && echo "release: $file, $(stat -c %s "$file") bytes"
done
echo "release: $DIST/SHA256SUMS and $DIST/server.json; the smoke tests passed; $(($(date +%s) - started)) s"
