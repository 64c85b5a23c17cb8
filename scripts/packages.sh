#!/usr/bin/env bash
# The packages a host starts without Rust, from the release binaries in DIST (tinymcp-TARGET[.exe],
# as scripts/release.sh names them): whichever of the six targets are there.
# - npm, into DIST/npm/: one package per platform, @tinymcp/OS-CPU (`os` and `cpu` set, the binary
#   in bin/), and the `tinymcp` package, whose command (packaging/npm/tinymcp.js) runs the binary
#   of the platform package npm installed as its optional dependency (the esbuild/biome pattern).
#   Then the check: the tarballs installed into an empty folder with no registry (--offline), and
#   `npx tinymcp --everything` answers `initialize` over stdio.
# - PyPI, into DIST/pypi/: the wheel of the Linux x86_64 static binary, by maturin's
#   `bindings = "bin"` (pyproject.toml), for `uvx tinymcp` and `pipx run tinymcp`; checked in a
#   fresh virtualenv (`tinymcp` on its PATH answers `initialize`) and by `uvx --from WHEEL`.
#   maturin runs cargo with release.sh's target, profile and features, so the build is fresh.
#   Skipped, said so, when DIST has no Linux x86_64 binary; TINYMCP_NO_WHEEL=1 skips it too.
# The version is the workspace's (the binary crate's). Usage: scripts/packages.sh DIST
set -euo pipefail
cd "$(dirname "$0")/.."
DIST=$(realpath "${1:?usage: scripts/packages.sh DIST}")
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
bash scripts/deps.sh
NODE_BIN=$PWD/.cache/npm/node_modules/.bin
export PATH="$NODE_BIN:$PATH" # Node 22 and its npm
seconds() { date +%s.%N; }
took() { printf '%.1f s' "$(echo "$(seconds) - $1" | bc)"; }

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
python3 - "$version" "${platforms[@]}" >"$main/package.json" <<'PY'
import json, sys
version, platforms = sys.argv[1], sorted(sys.argv[2:])
print(json.dumps({
    "name": "tinymcp", "version": version,
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
(cd "$check" && npm install --offline --no-audit --no-fund --loglevel=error "$npm_out"/*.tgz >/dev/null)
initialize='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"packages.sh","version":"0"}}}'
answer_of() { # COMMAND...: the first line the command answers to `initialize`
  echo "$initialize" | "$@" --everything 2>/dev/null | head -1
}
answer=$(cd "$check" && answer_of npx --offline --no-install tinymcp)
grep -q '"serverInfo":{"name":"tinymcp"' <<<"$answer" || {
  echo "packages: npx tinymcp did not answer initialize: $answer" >&2
  exit 1
}
echo "packages: npm: installed offline from the tarballs, \`npx tinymcp\` answers initialize, in $(took "$start")"
