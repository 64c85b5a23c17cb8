#!/usr/bin/env bash
# Longer runs of the deterministic mutation fuzzer for the HTTP request-head parser and the
# chunked decoder (the test command runs a few seconds of it). Same seeds, more rounds; a
# failure names its round, which replays exactly. Usage: scripts/fuzz.sh [ROUNDS] (default 5000000).
set -euo pipefail
cd "$(dirname "$0")/.."
TINYMCP_FUZZ_ROUNDS="${1:-5000000}" cargo test --release --lib mutated_ -- --nocapture
