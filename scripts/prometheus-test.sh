#!/usr/bin/env bash
# tinymcp's /metrics scraped by a real Prometheus (Debian's `prometheus` package): tinymcp
# --http --metrics with a bearer token and Prometheus both on loopback ports of their own (a
# scrape every second, the token from a file), a scripted load (a session opened, echo calls, a
# failing tool, a refused token, a request from a foreign Host, the session closed), then
# Prometheus' own query API asked for what it scraped; and `promtool check metrics` on a scrape.
# Skipped, with one line, where Prometheus is missing and cannot be installed
# (TINYMCP_INSTALL_PACKAGES=1 installs it).
# Usage: scripts/prometheus-test.sh [path/to/tinymcp]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/syspkg.sh
need_command prometheus prometheus || skip "prometheus test" "prometheus is not installed"
need_command promtool prometheus || skip "prometheus test" "promtool is not installed"
bin="${1:-}"
if [ -z "$bin" ]; then
  cargo build --quiet -p tinymcp-cli
  bin=target/debug/tinymcp
fi
work=$(mktemp -d)
server= prom=
trap 'kill $server $prom 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
python3 -c 'import secrets; print(secrets.token_hex(16), end="")' >"$work/token"
chmod 600 "$work/token"
port=$(free_port)
"$bin" --everything --http "127.0.0.1:$port" --metrics --token-file "$work/token" 2>"$work/tinymcp.log" &
server=$!
prom_port=$(free_port)
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: tinymcp
    scrape_interval: 1s
    authorization:
      type: Bearer
      credentials_file: $work/token
    static_configs:
      - targets: ["127.0.0.1:$port"]
EOF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
  --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
prom=$!
wait_port "$port"
wait_port "$prom_port" 30 || { tail -20 "$work/prometheus.log" >&2; exit 1; }

# The exposition format, as Prometheus' own linter reads it (after a little traffic).
curl -fsS -H "Authorization: Bearer $(cat "$work/token")" "http://127.0.0.1:$port/metrics" >"$work/scrape.txt"
promtool check metrics <"$work/scrape.txt"
echo "promtool check metrics: ok ($(grep -vc '^#' "$work/scrape.txt") samples)"

python3 - "$port" "$prom_port" "$work/token" <<'EOF'
import http.client, json, sys, time, urllib.parse

port, prom_port, token = int(sys.argv[1]), int(sys.argv[2]), open(sys.argv[3]).read()
auth = {"Authorization": f"Bearer {token}"}

def post(body, headers=None, host=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **(headers or {})}
    if host:
        c.putrequest("POST", "/mcp", skip_host=True)
        c.putheader("Host", host)
        data = json.dumps(body).encode()
        for k, v in {**h, "Content-Length": str(len(data))}.items():
            c.putheader(k, v)
        c.endheaders(data)
    else:
        c.request("POST", "/mcp", json.dumps(body), h)
    r = c.getresponse()
    return r.status, r.getheader("Mcp-Session-Id"), r.read()

def query(expr):
    url = f"http://127.0.0.1:{prom_port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    c = http.client.HTTPConnection("127.0.0.1", prom_port, timeout=10)
    c.request("GET", url)
    result = json.loads(c.getresponse().read())["data"]["result"]
    return float(result[0]["value"][1]) if result else None

def until(expr, want, within=30):
    """Polls Prometheus (it scrapes every second) until `expr` is `want`."""
    deadline = time.monotonic() + within
    got = None
    while time.monotonic() < deadline:
        got = query(expr)
        if got == want:
            print(f"  {expr} = {got:g}")
            return
        time.sleep(0.2)
    sys.exit(f"Prometheus: {expr} is {got}, expected {want}")

until('up{job="tinymcp"}', 1.0)
init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
        "capabilities": {}, "clientInfo": {"name": "prometheus-test", "version": "1"}}}
status, session, _ = post(init, auth)
assert status == 200 and session, status
s = {**auth, "Mcp-Session-Id": session}
assert post({"jsonrpc": "2.0", "method": "notifications/initialized"}, s)[0] == 202
until("tinymcp_sessions_open", 1.0)
for i in range(3):
    call = {"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": f"m{i}"}}}
    assert post(call, s)[0] == 200
failing = {"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": {"name": "test_error_handling", "arguments": {}}}
assert b'"isError":true' in post(failing, s)[2]
assert post(init, {"Authorization": "Bearer not-the-token-0123456789"})[0] == 401
assert post(init, auth, host="evil.example")[0] == 403
c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
c.request("DELETE", "/mcp", headers=s)
assert c.getresponse().status == 200

until("tinymcp_sessions_open", 0.0)
until('tinymcp_tool_calls_total{tool="echo",outcome="ok"}', 3.0)
until('tinymcp_tool_calls_total{tool="test_error_handling",outcome="is_error"}', 1.0)
until('sum(tinymcp_requests_total{method="tools/call"})', 4.0)
until('tinymcp_requests_total{method="initialize",outcome="result"}', 1.0)
until('tinymcp_tool_duration_seconds_count{tool="echo"}', 3.0)
until('tinymcp_refusals_total{reason="auth"}', 1.0)
until('tinymcp_refusals_total{reason="host_origin"}', 1.0)
until('tinymcp_http_responses_total{status="401"}', 1.0)
until('tinymcp_requests_in_flight', 0.0)
until('tinymcp_received_bytes_total > bool 0', 1.0)
print("Prometheus query API: the scripted session as expected")
EOF
