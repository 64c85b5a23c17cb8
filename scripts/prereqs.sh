#!/usr/bin/env bash
# Checks what scripts/test.sh needs before it starts, and names everything missing with how to get
# it (docs/testing.md lists the same): Rust 1.88+ with rustfmt and clippy, Node with npm,
# Python 3 with venv, nginx for the scale test (optional: that step is skipped without it),
# and about 2 GB of disk (3.3 GB, and network access to npm and PyPI, until .cache/ is filled).
set -uo pipefail
cd "$(dirname "$0")/.."
RUST_MIN=1.88 # the rust-version in Cargo.toml (sha2 0.11 needs it; the jsonschema dev-dependency 1.85)
missing=()

version_at_least() { printf '%s\n%s\n' "$2" "$1" | sort -C -V; }

if ! command -v cargo >/dev/null 2>&1; then
  missing+=("Rust (cargo): install it from https://rustup.rs")
else
  rust=$(rustc --version 2>/dev/null | awk '{print $2}')
  version_at_least "${rust:-0}" "$RUST_MIN" ||
    missing+=("Rust $RUST_MIN or newer (found ${rust:-none}): rustup update stable")
  cargo fmt --version >/dev/null 2>&1 || missing+=("rustfmt: rustup component add rustfmt")
  cargo clippy --version >/dev/null 2>&1 || missing+=("clippy: rustup component add clippy")
fi
command -v npm >/dev/null 2>&1 ||
  missing+=("Node.js with npm (any version; the tests install their own Node 22 with it): apt install npm, or https://nodejs.org")
if ! command -v python3 >/dev/null 2>&1; then
  missing+=("Python 3 with venv: apt install python3 python3-venv")
elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  missing+=("Python's venv module (with ensurepip): apt install python3-venv")
fi

# The builds need about 2 GB of disk in target/ (the test build is 0.5 GB with CARGO_INCREMENTAL=0,
# as CI builds; incremental builds add about 4 GB), and the first run 1.3 GB more for .cache/. A
# full disk fails mid-build with a message that is easy to misread, so it is named here.
need_mib=2048
[ -f .cache/npm/.stamp ] && [ -f .cache/venv/.stamp ] || need_mib=$((need_mib + 1300))
free_kib=$({ df -Pk "${CARGO_TARGET_DIR:-.}" 2>/dev/null || df -Pk .; } | awk 'NR == 2 {print $4}')
[ "${free_kib:-0}" -ge $((need_mib * 1024)) ] ||
  missing+=("about $need_mib MiB of free disk for target/ and .cache/ (found $((${free_kib:-0} / 1024)) MiB here): free some, or set CARGO_TARGET_DIR to a roomier disk")

# The first run downloads the pinned clients (scripts/deps.sh) into .cache/.
if [ ! -f .cache/npm/.stamp ] || [ ! -f .cache/venv/.stamp ]; then
  if command -v npm >/dev/null 2>&1 && ! timeout 30 npm ping >/dev/null 2>&1; then
    missing+=("network access to the npm registry ($(npm config get registry 2>/dev/null)): check the proxy (https_proxy) or npm's registry setting")
  fi
  index="${PIP_INDEX_URL:-https://pypi.org/simple}"
  if command -v python3 >/dev/null 2>&1 &&
    ! timeout 30 python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1].rstrip('/') + '/mcp/', timeout=20)" "$index" >/dev/null 2>&1; then
    missing+=("network access to PyPI ($index): check the proxy (https_proxy) or PIP_INDEX_URL")
  fi
fi

# Optional: without nginx the scale test is skipped with a line saying so; with
# TINYMCP_INSTALL_PACKAGES=1 (as root, Debian) scripts/syspkg.sh installs it when that step runs.
if ! PATH=$PATH:/usr/sbin command -v nginx >/dev/null 2>&1 && [ "${TINYMCP_INSTALL_PACKAGES:-0}" != 1 ]; then
  echo "note: nginx is missing, so the scale test will be skipped (apt-get install -y nginx, or TINYMCP_INSTALL_PACKAGES=1)" >&2
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "scripts/test.sh needs, and this machine lacks:" >&2
  printf '  - %s\n' "${missing[@]}" >&2
  exit 1
fi
