#!/usr/bin/env bash
# The container, built and run with podman where it can be: the FROM scratch image of
# deploy/Dockerfile.scratch around the static binary in dist/ (scripts/release.sh), started with
# a token, its healthcheck passing, a client served through the published port, SIGTERM drained
# to exit 0. podman comes from Debian through scripts/syspkg.sh (TINYMCP_INSTALL_PACKAGES=1);
# where it is missing, or no container can start here, one line says so and the step is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/syspkg.sh
need_command podman podman || skip "container check" "podman is missing (see the line above)"
[ -x dist/tinymcp-x86_64-unknown-linux-musl ] || bash scripts/release.sh --only x86_64 >/dev/null
image=localhost/tinymcp-check:latest
podman build --quiet --format docker -f deploy/Dockerfile.scratch -t "$image" dist/ >/dev/null
work=$(mktemp -d)
name=tinymcp-check-$$
trap 'podman rm -f "$name" >/dev/null 2>&1; rm -rf "$work"' EXIT
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/token"
chmod 644 "$work/token"
port=$(free_port)
if ! podman run -d --name "$name" -p "127.0.0.1:$port:8080" \
  -v "$work/token:/run/secrets/tinymcp_token:ro" "$image" >"$work/run.log" 2>&1; then
  skip "container check" "podman cannot start a container here: $(tail -1 "$work/run.log")"
fi
for _ in $(seq 100); do
  podman healthcheck run "$name" >/dev/null 2>&1 && break
  sleep 0.1
done
podman healthcheck run "$name" >/dev/null || { podman logs "$name" >&2; echo "container: healthcheck failing" >&2; exit 1; }
answer=$(curl -s -H "Authorization: Bearer $(cat "$work/token")" -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
  -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' "http://127.0.0.1:$port/mcp" \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"container"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}')
grep -q 'Echo: container' <<<"$answer" || { echo "container: no echo through the published port: $answer" >&2; exit 1; }
podman stop -t 15 "$name" >/dev/null
status=$(podman inspect -f '{{.State.ExitCode}}' "$name")
[ "$status" = 0 ] || { echo "container: exited $status after SIGTERM" >&2; exit 1; }
echo "container: built FROM scratch, healthcheck passing, echo served on the published port, SIGTERM drained (exit 0)"
