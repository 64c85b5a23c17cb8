# Sourced by scripts/proxy-interop.sh and scripts/proxy-revisions.sh, after they set `tinymcp`
# (the binary): the helpers they share (scripts/lib.sh), `logs` (a temporary folder) and `pids`
# (what they started), both cleaned up on exit. `proxy ARGS...` starts
# `tinymcp proxy --http 127.0.0.1:0 ARGS...` (`-- CMD...` or `--config FILE`) in the
# background, on a port the OS picks, and sets `port`.
. scripts/lib.sh
logs=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$logs"' EXIT

proxy() {
  local log="$logs/proxy-${#pids[@]}.log"
  # Made here: the background job opens it later, and sed on a missing file ends the script (2).
  : >"$log"
  "$tinymcp" proxy --http 127.0.0.1:0 "$@" >/dev/null 2>"$log" &
  pids+=($!)
  port=
  for _ in $(seq 200); do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log")
    [ -n "$port" ] && return
    sleep 0.05
  done
  cat "$log" >&2
  return 1
}
