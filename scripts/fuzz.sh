#!/usr/bin/env bash
# Longer runs of the deterministic mutation fuzzers (the test command runs a few seconds of
# them): in the library's unit tests the HTTP request-head parser, chunked decoder, JSON-RPC,
# URI templates and schemas; in the binary's, mutated JSON-RPC messages to every method of the
# `everything` profile and a served folder, manifests and globs (in process); then the same
# seeds, mutated, to the real binary on its stdin and POSTed to its /mcp (tests/it/fuzz_binary.rs,
# a hundredth of the rounds: each one is a process round trip). Same seeds, more rounds; a
# failure names its round, which replays exactly. Usage: scripts/fuzz.sh [ROUNDS] (default 5000000).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-5000000}"
TINYMCP_FUZZ_ROUNDS="$ROUNDS" cargo test --release --lib --bin tinymcp mutated_ -- --nocapture
TINYMCP_FUZZ_ROUNDS=$((ROUNDS / 100 > 0 ? ROUNDS / 100 : 1)) cargo test --release --test it fuzz_binary -- --nocapture
