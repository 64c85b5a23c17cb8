#!/usr/bin/env bash
# The packages a host starts without Rust, from the release binaries in DIST (tinymcp-TARGET[.exe],
# as scripts/release.sh names them): whichever of the six targets are there.
# - npm, into DIST/npm/: one package per platform, @tinymcp/OS-CPU (`os` and `cpu` set, the binary
#   in bin/), and the `tinymcp` package, whose command (packaging/npm/tinymcp.js) runs the binary
#   of the platform package npm installed as its optional dependency (the esbuild/biome pattern).
#   Then the check: the tarballs installed into an empty folder with no registry (--offline),
#   `npx tinymcp --everything` answers `initialize` over stdio and `npx tinymcp config` writes
#   the npx form; the launcher names the package missing on an unknown platform or when npm left
#   the optional dependency out.
# - PyPI, into DIST/pypi/: the wheels (`bindings = "bin"`, pyproject.toml) for `uvx tinymcp` and
#   `pipx run tinymcp`: the Linux x86_64 one by maturin, the others from it (below); checked in
#   a fresh virtualenv (`tinymcp` on its PATH answers `initialize`) and by `uvx --from WHEEL`.
#   Skipped, said so, when DIST has no Linux x86_64 binary; TINYMCP_NO_WHEEL=1 skips it too.
# The version is the workspace's (the binary crate's). Usage: scripts/packages.sh DIST
set -euo pipefail
cd "$(dirname "$0")/.."
DIST=$(realpath "${1:?usage: scripts/packages.sh DIST}")
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
bash scripts/deps.sh
NODE_BIN=$PWD/.cache/npm/node_modules/.bin
export PATH="$NODE_BIN:$PATH" # Node 22 and its npm
seconds() { date +%s%N; }
took() { # START: the time since START, as "N.N s"
  local tenths=$((($(seconds) - $1) / 100000000))
  echo "$((tenths / 10)).$((tenths % 10)) s"
}

# Rust target -> npm os, cpu, and the binary's name.
declare -A OS=([x86_64-unknown-linux-musl]=linux [aarch64-unknown-linux-musl]=linux
  [x86_64-apple-darwin]=darwin [aarch64-apple-darwin]=darwin
  [x86_64-pc-windows-gnu]=win32 [aarch64-pc-windows-gnullvm]=win32)
declare -A CPU=([x86_64-unknown-linux-musl]=x64 [aarch64-unknown-linux-musl]=arm64
  [x86_64-apple-darwin]=x64 [aarch64-apple-darwin]=arm64
  [x86_64-pc-windows-gnu]=x64 [aarch64-pc-windows-gnullvm]=arm64)

start=$(seconds)
npm_out=$DIST/npm
rm -rf "$npm_out" && mkdir -p "$npm_out"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
platforms=()
for target in "${!OS[@]}"; do
  exe=tinymcp
  [ "${OS[$target]}" = win32 ] && exe=tinymcp.exe
  [ -f "$DIST/tinymcp-$target${exe#tinymcp}" ] || continue
  name="@tinymcp/${OS[$target]}-${CPU[$target]}"
  dir=$stage/${OS[$target]}-${CPU[$target]}
  mkdir -p "$dir/bin"
  install -m 755 "$DIST/tinymcp-$target${exe#tinymcp}" "$dir/bin/$exe"
  python3 - "$name" "$version" "${OS[$target]}" "${CPU[$target]}" "$target" >"$dir/package.json" <<'PY'
import json, sys
name, version, os_, cpu, target = sys.argv[1:]
print(json.dumps({
    "name": name, "version": version,
    "description": f"The tinymcp binary for {os_} {cpu} ({target}); installed by the tinymcp package",
    "license": "MIT OR Apache-2.0",
    "repository": {"type": "git", "url": "git+https://github.com/tinymcp/tinymcp.git"},
    "os": [os_], "cpu": [cpu],
    "files": ["bin/"],
    "preferUnplugged": True,
}, indent=2))
PY
  echo "This is the tinymcp binary for ${OS[$target]} ${CPU[$target]}: install \`tinymcp\`, which picks it." >"$dir/README.md"
  platforms+=("$name")
done
[ "${#platforms[@]}" -gt 0 ] || { echo "packages: no tinymcp-TARGET binary in $DIST" >&2; exit 1; }

main=$stage/tinymcp
mkdir -p "$main/bin"
install -m 755 packaging/npm/tinymcp.js "$main/bin/tinymcp.js"
cp README.md "$main/README.md"
# mcpName: how the MCP registry checks that the npm package is this server's (server.json's name,
# the README's mcp-name line).
mcp_name=$(sed -n 's/.*mcp-name: \([^ ]*\) .*/\1/p' README.md | head -1)
python3 - "$version" "$mcp_name" "${platforms[@]}" >"$main/package.json" <<'PY'
import json, sys
version, mcp_name, platforms = sys.argv[1], sys.argv[2], sorted(sys.argv[3:])
print(json.dumps({
    "name": "tinymcp", "version": version, "mcpName": mcp_name,
    "description": "A Model Context Protocol server: a folder served to the model, read-only and sandboxed; your commands as tools. One static binary.",
    "keywords": ["mcp", "model-context-protocol", "mcp-server"],
    "license": "MIT OR Apache-2.0",
    "repository": {"type": "git", "url": "git+https://github.com/tinymcp/tinymcp.git"},
    "bin": {"tinymcp": "bin/tinymcp.js"},
    "files": ["bin/"],
    "engines": {"node": ">=18"},
    "optionalDependencies": {name: version for name in platforms},
}, indent=2))
PY
for dir in "$stage"/*/; do
  (cd "$npm_out" && npm pack --silent "$dir" >/dev/null)
done
echo "packages: npm: $(ls "$npm_out" | tr '\n' ' ')in $(took "$start")"

# The check: an empty folder, the tarballs only, no registry.
start=$(seconds)
check=$stage/check
mkdir -p "$check"
echo '{"name":"check","private":true}' >"$check/package.json"
# The main package and this machine's platform package (npm refuses another platform's).
here=$(node -p 'process.platform + "-" + process.arch')
[ -f "$npm_out/tinymcp-$here-$version.tgz" ] || { echo "packages: npm: no $here package to check here" >&2; exit 1; }
(cd "$check" && npm install --offline --no-audit --no-fund --loglevel=error \
  "$npm_out/tinymcp-$version.tgz" "$npm_out/tinymcp-$here-$version.tgz" >/dev/null)
initialize='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"packages.sh","version":"0"}}}'
answer_of() { # COMMAND...: what the command answers to `initialize` (stdin then ends; 60 s at most)
  echo "$initialize" | timeout 60 "$@" --everything 2>/dev/null || true
}
answer=$(cd "$check" && answer_of npx --offline --no-install tinymcp)
grep -q '"serverInfo":{"name":"tinymcp"' <<<"$answer" || {
  echo "packages: npx tinymcp did not answer initialize: $answer" >&2
  exit 1
}
snippet=$(cd "$check" && npx --offline --no-install tinymcp config --host cursor --everything 2>/dev/null)
grep -q '"command": "npx"' <<<"$snippet" || {
  echo "packages: tinymcp started by npx does not write the npx form" >&2
  exit 1
}
# The launcher's two refusals: a platform with no package, and the platform package left out.
said=$(node -e 'Object.defineProperty(process, "platform", {value: "aix"}); require(process.argv[1])' \
  "$check/node_modules/tinymcp/bin/tinymcp.js" 2>&1) && { echo "packages: npm on aix: started: $said" >&2; exit 1; }
grep -q "no binary is published for aix" <<<"$said" || { echo "packages: npm on aix: $said" >&2; exit 1; }
mkdir -p "$stage/bare" && echo '{"name":"bare","private":true}' >"$stage/bare/package.json"
(cd "$stage/bare" && npm install --offline --omit=optional --no-audit --no-fund --loglevel=error \
  "$npm_out/tinymcp-$version.tgz" >/dev/null)
said=$("$stage/bare/node_modules/.bin/tinymcp" --version 2>&1) && { echo "packages: npm without @tinymcp/$here: started" >&2; exit 1; }
grep -q "the package @tinymcp/$here, which carries this platform's binary, is not installed" <<<"$said" || {
  echo "packages: npm without the platform package: $said" >&2
  exit 1
}
echo "packages: npm: installed offline from the tarballs, \`npx tinymcp\` answers initialize, writes the npx form," \
  "names a missing platform package, in $(took "$start")"

# PyPI. The Linux x86_64 wheel is maturin's (pyproject.toml), from the release build cargo finds
# fresh: its binary must be the very one in DIST. The other targets' wheels are that wheel with
# their DIST binary in its place and their platform tags (scripts/wheel-retag.py): the same
# files maturin writes, since a `bindings = "bin"` wheel is the binary and its metadata.
X86=x86_64-unknown-linux-musl
if [ "${TINYMCP_NO_WHEEL:-0}" = 1 ] || [ ! -f "$DIST/tinymcp-$X86" ]; then
  echo "packages: PyPI skipped: TINYMCP_NO_WHEEL=1, or no $DIST/tinymcp-$X86 (the wheels start from its build)"
  exit 0
fi
MATURIN_VERSION=1.16.0
UV_VERSION=0.13.9
WHEEL_TOOLS=$PWD/.cache/wheel
if [ "$(cat "$WHEEL_TOOLS/.stamp" 2>/dev/null)" != "maturin=$MATURIN_VERSION uv=$UV_VERSION" ]; then
  rm -rf "$WHEEL_TOOLS"
  python3 -m venv "$WHEEL_TOOLS"
  "$WHEEL_TOOLS/bin/pip" install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION" "uv==$UV_VERSION" >&2
  echo "maturin=$MATURIN_VERSION uv=$UV_VERSION" >"$WHEEL_TOOLS/.stamp"
fi
start=$(seconds)
pypi_out=$DIST/pypi
rm -rf "$pypi_out" && mkdir -p "$pypi_out"
. scripts/syspkg.sh
. scripts/lib.sh
use_musl_cc
# A static binary runs on any Linux: tagged for glibc (manylinux2014) and musl alike, as uv's are.
"$WHEEL_TOOLS/bin/maturin" build --quiet --release --target "$X86" --compatibility manylinux2014 musllinux_1_2 \
  --out "$pypi_out" >&2
wheel=$(ls "$pypi_out"/tinymcp-"$version"-*.whl)
# The wheel must carry the binary release.sh checked: the very one when cargo found the build
# fresh (release.sh's build and maturin's select the same package, target, profile, features).
if cmp -s "$DIST/tinymcp-$X86" "${CARGO_TARGET_DIR:-target}/$X86/release/tinymcp"; then
  echo "packages: PyPI: $(basename "$wheel") by maturin (cargo's build was fresh) in $(took "$start")"
else
  python3 scripts/wheel-retag.py "$wheel" "$DIST/tinymcp-$X86" "$X86" "$stage" >/dev/null
  mv "$stage/$(basename "$wheel")" "$wheel"
  echo "packages: PyPI: $(basename "$wheel") by maturin in $(took "$start"), whose cargo build is not" \
    "release.sh's (cargo build -p tinymcp-cli is maturin's): the wheel carries release.sh's binary instead"
fi
for target in "${!OS[@]}"; do
  [ "$target" = "$X86" ] && continue
  exe=""
  [ "${OS[$target]}" = win32 ] && exe=.exe
  [ -f "$DIST/tinymcp-$target$exe" ] || continue
  python3 scripts/wheel-retag.py "$wheel" "$DIST/tinymcp-$target$exe" "$target" "$pypi_out"
done

# The check: a fresh virtualenv, the wheel from the file alone; `tinymcp` on its PATH answers,
# and, started so, its snippets run `uvx tinymcp`. Then uvx itself, offline, from the wheel.
start=$(seconds)
python3 -m venv "$stage/venv"
"$stage/venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
answer=$(PATH="$stage/venv/bin:$PATH" answer_of tinymcp)
grep -q '"serverInfo":{"name":"tinymcp"' <<<"$answer" || {
  echo "packages: tinymcp from the wheel did not answer initialize: $answer" >&2
  exit 1
}
snippet=$(PATH="$stage/venv/bin:$PATH" tinymcp config --host cursor --everything 2>/dev/null)
grep -q '"command": "uvx"' <<<"$snippet" || {
  echo "packages: tinymcp from the wheel does not write the uvx form" >&2
  exit 1
}
answer=$(UV_CACHE_DIR=$stage/uv answer_of "$WHEEL_TOOLS/bin/uvx" --offline --from "$wheel" tinymcp)
grep -q '"serverInfo":{"name":"tinymcp"' <<<"$answer" || {
  echo "packages: uvx --from the wheel did not answer initialize: $answer" >&2
  exit 1
}
echo "packages: PyPI: installed into a fresh virtualenv, \`tinymcp\` answers initialize, and \`uvx\` too, in $(took "$start")"
(cd "$DIST" && ls -l npm/*.tgz pypi/*.whl | awk '{print "packages: " $9 ", " $5 " bytes"}')
