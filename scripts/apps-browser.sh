#!/usr/bin/env bash
# MCP Apps in headless Chromium (tests/interop/apps_browser.mjs): a manifest tool's view rendered
# by a host page built on the official app bridge. Skipped with one line when Chromium cannot be
# had (scripts/syspkg.sh installs it only with TINYMCP_INSTALL_PACKAGES=1).
# Usage: scripts/apps-browser.sh [TINYMCP] (default target/release/tinymcp)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/syspkg.sh
. scripts/lib.sh
binary=${1:-target/release/tinymcp}
missing=$(need_command chromium chromium 2>&1) || skip "apps browser test" "${missing##*$'\n'}"
bash scripts/deps.sh
out=${CARGO_TARGET_DIR:-target}/apps-test
mkdir -p "$out"
# One browser script of the host page: the app bridge, and the SDK client pinned in .cache/npm.
NODE_PATH=.cache/apps/node_modules:.cache/npm/node_modules .cache/apps/node_modules/.bin/esbuild \
  tests/interop/apps_browser/host.mjs --bundle --format=esm --platform=browser --log-level=warning \
  --outfile="$out/host.js"
.cache/npm/node_modules/.bin/node tests/interop/apps_browser.mjs .cache/apps/node_modules "$out" -- \
  "$binary" --manifest tests/interop/apps_browser/manifest.json --no-watch
