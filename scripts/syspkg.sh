#!/usr/bin/env bash
# Sourced by the test scripts: `need_command CMD PACKAGE` succeeds when CMD is on the PATH, installs
# Debian's PACKAGE first when told to (TINYMCP_INSTALL_PACKAGES=1, which .ci/run sets; it needs
# root and apt-get), and otherwise names what is missing and how to get it, and fails.
need_command() {
  local cmd=$1 pkg=$2
  command -v "$cmd" >/dev/null 2>&1 && return 0
  if [ "${TINYMCP_INSTALL_PACKAGES:-0}" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing $pkg (apt-get install -y $pkg)" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -qq "$pkg" || { apt-get update -qq && apt-get install -y -qq "$pkg"; }; } >&2 || true
    command -v "$cmd" >/dev/null 2>&1 && return 0
  fi
  if [ "${TINYMCP_INSTALL_PACKAGES:-0}" = 1 ]; then
    echo "$cmd is missing and could not be installed (as root: apt-get install -y $pkg)" >&2
  else
    echo "$cmd is missing: install it (apt-get install -y $pkg), or let the tests install it with TINYMCP_INSTALL_PACKAGES=1" >&2
  fi
  return 1
}
