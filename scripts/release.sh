#!/usr/bin/env bash
# Builds what a release ships, into dist/: the static binaries tinymcp-x86_64-unknown-linux-musl
# and tinymcp-aarch64-unknown-linux-musl (with OAuth, stripped by the release profile, checked to
# load no shared library), SHA256SUMS over them, and a stdio smoke test of the x86_64 one.
# Then one MCP bundle per binary (tinymcp-ARCH.mcpb: manifest_version 0.4, server.type "binary",
# a `directory` user_config for the folder to serve), validated and packed by the official MCPB
# CLI pinned in scripts/deps.sh. Usage: scripts/release.sh [--only x86_64]
#
# The aarch64 cross build: the Rust target comes from `rustup target add`; its linker (and the C
# compiler ring's assembly needs) is Debian's gcc-aarch64-linux-gnu, installed by scripts/syspkg.sh
# when TINYMCP_INSTALL_PACKAGES=1 (as in CI), or an aarch64-linux-musl-gcc already on the PATH.
# Without either, the aarch64 binary is skipped with a line saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}
DIST=dist
only=""
[ "${1:-}" = "--only" ] && only=${2:?--only needs x86_64}

rm -rf "$DIST"
mkdir -p "$DIST"
built=()

X86=x86_64-unknown-linux-musl
rustup target list --installed | grep -qx "$X86" || rustup target add "$X86"
# ring (feature `oauth`) compiles some C: musl-gcc (scripts/syspkg.sh).
. scripts/syspkg.sh
. scripts/lib.sh
use_musl_cc
cargo build --release --locked --quiet --features oauth --bin tinymcp --target "$X86"
check_static "$TARGET/$X86/release/tinymcp"
cp "$TARGET/$X86/release/tinymcp" "$DIST/tinymcp-$X86"
built+=("tinymcp-$X86")

ARM=aarch64-unknown-linux-musl
if [ -z "$only" ]; then
  linker=""
  if command -v aarch64-linux-musl-gcc >/dev/null 2>&1; then
    linker=aarch64-linux-musl-gcc
  elif need_command aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu; then
    linker=aarch64-linux-gnu-gcc
  fi
  if [ -n "$linker" ] && { rustup target list --installed | grep -qx "$ARM" || rustup target add "$ARM"; }; then
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=$linker CC_aarch64_unknown_linux_musl=$linker \
      cargo build --release --locked --quiet --features oauth --bin tinymcp --target "$ARM"
    check_static "$TARGET/$ARM/release/tinymcp"
    cp "$TARGET/$ARM/release/tinymcp" "$DIST/tinymcp-$ARM"
    built+=("tinymcp-$ARM")
  else
    echo "release: $ARM skipped: it needs the Rust target and a cross linker (see the line above)"
  fi
fi

# The smoke test: the x86_64 binary answers a 2026-07-28 tools/call over stdio (no handshake).
request='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"release"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
answer=$(echo "$request" | "$DIST/tinymcp-$X86" --everything 2>/dev/null)
grep -q '"text":"Echo: release"' <<<"$answer" || {
  echo "release: the smoke test failed: $answer" >&2
  exit 1
}

# The bundles: a manifest per binary, checked and packed by `mcpb`.
bash scripts/deps.sh
export PATH="$PWD/.cache/npm/node_modules/.bin:$PATH" # Node 22 for the MCPB CLI
MCPB=$PWD/.cache/release/node_modules/.bin/mcpb
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
for file in "${built[@]}"; do
  arch=${file#tinymcp-}
  arch=${arch%%-*}
  stage=$DIST/mcpb-$arch
  mkdir -p "$stage/server"
  cp "$DIST/$file" "$stage/server/tinymcp"
  python3 scripts/mcpb-manifest.py "$version" "$arch" >"$stage/manifest.json"
  "$MCPB" validate "$stage/manifest.json" >/dev/null
  "$MCPB" pack "$stage" "$DIST/tinymcp-$arch.mcpb" >/dev/null
  rm -rf "$stage"
  built+=("tinymcp-$arch.mcpb")
done

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

(cd "$DIST" && sha256sum "${built[@]}" >SHA256SUMS)
for file in "${built[@]}"; do
  echo "release: $DIST/$file, $(stat -c %s "$DIST/$file") bytes"
done
echo "release: $DIST/SHA256SUMS and $DIST/server.json; the smoke test over stdio passed"
