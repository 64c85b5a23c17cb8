#!/usr/bin/env bash
# The macOS build, checked here as far as Linux can: clippy for x86_64-apple-darwin and
# aarch64-apple-darwin, every target of both crates (the library, the binary, their tests and
# examples), warnings denied. Check only: clippy needs the targets' standard library (rustup),
# no macOS linker or SDK. Feature `oauth` is left out: ring's build compiles C, which needs a C
# compiler for macOS (scripts/release.sh builds the release with it through zig). The macOS
# tests of `connect https://` (tests/it/connect_tls.rs) are left out for the same reason: their
# TLS dev-dependencies use ring. The macOS
# binaries themselves are built by scripts/release.sh and run by the CI workflow's macos job.
# Skipped, with one line, when a target is missing and rustup cannot add it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
for target in x86_64-apple-darwin aarch64-apple-darwin; do
  rustup target list --installed 2>/dev/null | grep -qx "$target" || rustup target add "$target" >&2 ||
    skip "macos (clippy)" "the Rust target $target is not installed and rustup could not add it (rustup target add $target)"
done
for target in x86_64-apple-darwin aarch64-apple-darwin; do
  cargo clippy --quiet --target "$target" --all-targets -- -D warnings
  echo "macos: clippy --target $target --all-targets: clean"
done
