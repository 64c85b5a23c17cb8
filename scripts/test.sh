#!/usr/bin/env bash
# The whole test suite, as CI runs it: format, lints, unit and integration tests, then the
# interop tests against clients nobody here wrote (installed by scripts/deps.sh, cached in .cache/).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*" >&2; }

step "cargo fmt --check"
cargo fmt --check
step "cargo clippy"
cargo clippy --all-targets --quiet -- -D warnings
step "cargo test"
cargo test --quiet 2>&1 | tee .test-output.log
step "layering and dependency checks"
bash scripts/check-layers.sh
step "interop: installing pinned clients"
bash scripts/deps.sh
cargo build --release --quiet
step "interop: Python SDK client over stdio"
.cache/venv/bin/python tests/interop/python_client.py --transport stdio -- target/release/tinymcp --everything
step "interop: Python SDK client on a temporary folder and manifest"
.cache/venv/bin/python tests/interop/python_files.py -- target/release/tinymcp
