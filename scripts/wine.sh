#!/usr/bin/env bash
# Sourced by the Windows test (`. scripts/wine.sh` from the repository root): a Wine prefix of
# our own under target/ (never ~/.wine), in which the Windows build runs.
#
# Wine 8.0 (Debian 12) lacks bcryptprimitives.dll, whose ProcessPrng Rust's std (1.78 and
# later) calls for random bytes: without it every Rust program ends at start. The stub built
# here from scripts/wine/bcryptprimitives.c answers from RtlGenRandom, and is copied into the
# prefix's system32. (A newer Wine has the DLL; the stub then is not used.)

# wine_ready: skips the caller (scripts/lib.sh `skip`) when wine or mingw-w64 is missing.
# With TINYMCP_INSTALL_PACKAGES=1 (CI) it installs them first (scripts/syspkg.sh), and the Rust
# target with rustup.
wine_ready() {
  . scripts/syspkg.sh
  need_command wine wine >/dev/null 2>&1 || skip "windows (wine)" "wine is not installed (apt-get install wine)"
  need_command x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64 >/dev/null 2>&1 ||
    skip "windows (wine)" "mingw-w64 is not installed (apt-get install gcc-mingw-w64-x86-64)"
  if [ "${TINYMCP_INSTALL_PACKAGES:-0}" = 1 ] && ! rustup target list --installed 2>/dev/null | grep -qx x86_64-pc-windows-gnu; then
    rustup target add x86_64-pc-windows-gnu >&2 || true
  fi
  rustup target list --installed 2>/dev/null | grep -qx x86_64-pc-windows-gnu ||
    skip "windows (wine)" "the Rust target x86_64-pc-windows-gnu is not installed (rustup target add x86_64-pc-windows-gnu)"
}

# wine_prefix: exports WINEPREFIX (a prefix made here once, target/wine/prefix, or
# $TINYMCP_WINEPREFIX) and WINEDEBUG, with the bcryptprimitives stub in its system32. Not under
# .cache/: a prefix's drive Z: is a link to /, and cargo walks every folder of the package's root
# but target/ (`cargo doc` then fails on /proc).
wine_prefix() {
  export WINEDEBUG=-all WINEARCH=win64
  local dir="${CARGO_TARGET_DIR:-$PWD/target}/wine"
  export WINEPREFIX="${TINYMCP_WINEPREFIX:-$dir/prefix}"
  local stub="$dir/bcryptprimitives.dll"
  mkdir -p "$(dirname "$stub")"
  if [ ! -f "$stub" ] || [ scripts/wine/bcryptprimitives.c -nt "$stub" ] || [ scripts/wine/bcryptprimitives.def -nt "$stub" ]; then
    x86_64-w64-mingw32-gcc -O2 -shared -o "$stub" scripts/wine/bcryptprimitives.c scripts/wine/bcryptprimitives.def -ladvapi32
  fi
  if [ ! -d "$WINEPREFIX/drive_c/windows/system32" ]; then
    mkdir -p "$WINEPREFIX"
    # -i: initialise a new prefix; no display needed (Wine only warns about one).
    DISPLAY= wineboot -i >/dev/null 2>&1
    wineserver -w
  fi
  # Only where the prefix has none of its own (a newer Wine ships the real DLL).
  local target="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
  if ! wine_has_own_dll && ! cmp -s "$stub" "$target"; then
    cp "$stub" "$target"
  fi
}

# wine_has_own_dll: whether this Wine ships bcryptprimitives.dll itself.
wine_has_own_dll() {
  local dir
  for dir in /usr/lib/x86_64-linux-gnu/wine/x86_64-windows /usr/lib/wine/x86_64-windows /opt/wine*/lib/wine/x86_64-windows; do
    [ -f "$dir/bcryptprimitives.dll" ] && return 0
  done
  return 1
}
