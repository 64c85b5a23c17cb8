#!/usr/bin/env bash
# The referee: the official conformance suite (@modelcontextprotocol/conformance, pinned in
# scripts/deps.sh) against `tinymcp --everything --http` on a free loopback port. Runs the
# 2025-11-25 requirement set and the whole suite at 2025-11-25, then the 2026-07-28 requirement
# set and the whole suite at 2026-07-28; fails on any failing scenario
# (scripts/conformance-expected-failures.yml may list only scenarios outside the requirement set).
# The extensions' scenarios (tasks, SEP-2663; skills, SEP-2640) then run one by one, each
# required to pass every check with no warning. Last, both requirement sets again through
# `tinymcp proxy` in front of `tinymcp --everything` over stdio (a child per session; 2026-07-28
# requests through one child they share): every scenario must pass there too (the translation
# between revisions is refereed by scripts/proxy-revisions.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
NODE=.cache/npm/node_modules/.bin/node
CONFORMANCE=.cache/npm/node_modules/.bin/conformance
. scripts/lib.sh
tinymcp=$(release_binary)
port=$(free_port)
log=$(mktemp -d)
"$tinymcp" --everything --http "127.0.0.1:$port" 2>"$log/server.log" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$log"' EXIT
wait_port "$port"

status=0
run() { # run NAME ARGS...: one suite run against $url (the server by default); its failures fail the script
  local name=$1
  shift
  conformance_run "conformance $name" "$log/$name.txt" "${url:-http://127.0.0.1:$port/mcp}" "$@" || status=1
}
expected=()
[ -s scripts/conformance-expected-failures.yml ] && expected=(--expected-failures scripts/conformance-expected-failures.yml)
run "requirements-2025-11-25" --requirements 2025-11-25
run "all-at-2025-11-25" --suite all --spec-version 2025-11-25 "${expected[@]}"
# The requirement set must be complete: 30 scored scenarios, every one passing.
scored=$(grep -cE '^✓ ' "$log/requirements-2025-11-25.txt" || true)
echo "conformance: $scored scenarios passed in the 2025-11-25 requirement run"
run "requirements-2026-07-28" --requirements 2026-07-28
run "all-at-2026-07-28" --suite all --spec-version 2026-07-28 "${expected[@]}"
# Scored: the scenarios that pass, minus those the run lists as not scored (37 scored in all).
scored=$(awk '/^Not scored for/ {ns = 1} ns && /^  (✓|✗) / {skip[$2] = 1} !ns && /^✓ / {sub(":", "", $2); ok[$2] = 1}
  END {n = 0; for (s in ok) if (!(s in skip)) n++; print n}' "$log/requirements-2026-07-28.txt")
echo "conformance: $scored scored scenarios passed in the 2026-07-28 requirement run (of 37)"
scenario() { # scenario PORT NAME: one extension scenario; every check must pass, with no warning
  if "$NODE" "$CONFORMANCE" server --url "http://127.0.0.1:$1/mcp" --scenario "$2" >"$log/$2.txt" 2>&1; then rc=0; else rc=$?; fi
  local summary
  summary=$(grep -E '^Passed: ' "$log/$2.txt" | tail -1)
  echo "conformance $2: ${summary:-no summary} (exit $rc)"
  if [ "$rc" -ne 0 ] || ! grep -qE '^Passed: ([0-9]+)/\1, 0 failed, 0 warnings' <<<"$summary"; then
    grep -E 'FAILURE|WARNING|SKIPPED' "$log/$2.txt" | head -40 || tail -40 "$log/$2.txt"
    status=1
  fi
}
# The tasks extension (SEP-2663, contract §2.7); the suite always skips tasks-status-notifications.
for name in tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal \
  tasks-mrtr-input tasks-request-headers tasks-dispatch-and-envelope tasks-required-task-error \
  tasks-mrtr-composition; do
  scenario "$port" "$name"
done
# The skills extension (SEP-2640): a second server with the shipped skills folder (none skipped:
# the extension is declared).
skills_port=$(free_port)
"$tinymcp" --everything --skills examples/skills --http "127.0.0.1:$skills_port" 2>"$log/skills-server.log" &
skills_server=$!
trap 'kill $server $skills_server 2>/dev/null; rm -rf "$log"' EXIT
wait_port "$skills_port"
for name in sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory; do
  scenario "$skills_port" "$name"
done
# Through the proxy: the same requirement set, every scenario relayed to a child per session.
# (SEP-1699's server-sse-polling, not scored, passes with no checks: a stdio child cannot close
# an HTTP stream, so the proxy never closes one mid-call.)
proxy_port=$(free_port)
"$tinymcp" proxy --http "127.0.0.1:$proxy_port" -- "$tinymcp" --everything 2>"$log/proxy.log" &
proxy=$!
trap 'kill $server $skills_server $proxy 2>/dev/null; rm -rf "$log"' EXIT
wait_port "$proxy_port"
url="http://127.0.0.1:$proxy_port/mcp" run "proxy-requirements-2025-11-25" --requirements 2025-11-25
scored=$(grep -cE '^✓ ' "$log/proxy-requirements-2025-11-25.txt" || true)
echo "conformance: $scored scenarios passed in the 2025-11-25 requirement run through the proxy"
# And the 2026-07-28 set: the child answers server/discover, so its requests pass as they are.
url="http://127.0.0.1:$proxy_port/mcp" run "proxy-requirements-2026-07-28" --requirements 2026-07-28
exit $status
