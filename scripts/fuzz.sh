#!/usr/bin/env bash
# Longer runs of the deterministic mutation fuzzers (the test command runs a few seconds of
# them): the HTTP request-head parser and chunked decoder, mutated JSON-RPC messages to every
# method of the `everything` profile and a served folder, and the JSON-RPC, URI-template,
# schema, manifest and glob code directly. Same seeds, more rounds; a failure names its round,
# which replays exactly. Usage: scripts/fuzz.sh [ROUNDS] (default 5000000).
set -euo pipefail
cd "$(dirname "$0")/.."
TINYMCP_FUZZ_ROUNDS="${1:-5000000}" cargo test --release --lib mutated_ -- --nocapture
