#!/usr/bin/env bash
# Soak tests, with the server's resident memory, threads and open descriptors sampled every
# 10 s and printed as a table; flat columns mean nothing leaks.
# - HTTP (the default): mixed load for a while (sessions created and abandoned, echo calls on
#   kept-alive connections, GET streams opened and dropped, legacy SSE sessions).
# - stdio (`--stdio`): one client on the pipes sending a mix of every kind of request (calls,
#   lists, reads, prompts, progress, logging, completions, cancellations, malformed lines, and a
#   burst of 2000 pings every 500 requests), keeping at most 256 numbered requests unanswered.
# Usage: scripts/soak.sh [--stdio] [SECONDS] (default 600; try 60 for a quick look).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
MODE=http
if [ "${1:-}" = "--stdio" ]; then
  MODE=stdio
  shift
fi
DURATION="${1:-600}"

cargo build --release --quiet --bin tinymcp

if [ "$MODE" = stdio ]; then
  exec python3 - "$DURATION" <<'EOF'
import json, os, subprocess, sys, threading, time

duration = float(sys.argv[1])
server = subprocess.Popen([os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "tinymcp"), "--everything", "--no-watch"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
pid = server.pid
window = threading.Semaphore(256)
counts = {"numbered requests": 0, "answers": 0, "error answers": 0, "notifications": 0}
lock = threading.Lock()
done = threading.Event()

def send(obj_or_text, expect_answer=True):
    if expect_answer:
        window.acquire()
    text = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text)
    server.stdin.write(text.encode() + b"\n")
    server.stdin.flush()
    with lock:
        counts["numbered requests"] += 1 if expect_answer else 0

def reader():
    for line in server.stdout:
        msg = json.loads(line)
        answers = msg if isinstance(msg, list) else [msg]
        for m in answers:
            if "id" in m and "method" not in m:
                with lock:
                    counts["answers"] += 1
                    if "error" in m:
                        counts["error answers"] += 1
                # Only numbered requests hold a place in the window; bursts and cancelled
                # calls (string ids) and malformed lines (id null) do not.
                if isinstance(m["id"], int):
                    window.release()
            elif "method" in m and "id" in m:
                # The server asks us something (sampling, elicitation, roots): decline.
                send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}}, False)
            else:
                with lock:
                    counts["notifications"] += 1
    done.set()

def sample(label):
    status = open(f"/proc/{pid}/status").read()
    field = lambda k: next(l.split()[1] for l in status.splitlines() if l.startswith(k + ":"))
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    print(f"{label:>8} {field('VmRSS'):>10} {field('Threads'):>8} {fds:>6}", flush=True)

threading.Thread(target=reader, daemon=True).start()
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-03-26",
      "capabilities": {"sampling": {}, "roots": {}}, "clientInfo": {"name": "soak", "version": "1"}}})
time.sleep(0.2)
send({"jsonrpc": "2.0", "method": "notifications/initialized"}, False)
mix = [
    ("tools/call", {"name": "echo", "arguments": {"message": "x" * 300}}),
    ("tools/list", {}),
    ("resources/list", {}),
    ("resources/read", {"uri": "test://static-text"}),
    ("resources/read", {"uri": "test://template/42/data"}),
    ("resources/read", {"uri": "test://no-such-resource"}),
    ("prompts/get", {"name": "test_simple_prompt"}),
    ("tools/call", {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p"}}),
    ("tools/call", {"name": "test_tool_with_logging", "arguments": {}}),
    ("logging/setLevel", {"level": "debug"}),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                             "argument": {"name": "arg1", "value": "a"}}),
    ("ping", {}),
]
print(f"{'seconds':>8} {'RSS KiB':>10} {'threads':>8} {'fds':>6}", flush=True)
sample(0)
start = time.time()
next_sample = 10
n = 0
while time.time() - start < duration:
    n += 1
    method, params = mix[n % len(mix)]
    send({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
    if n % 50 == 0:
        send('{"jsonrpc":"2.0","id":', False)  # malformed: answered with id null
        slow = {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": f"c{n}"}}
        send({"jsonrpc": "2.0", "id": f"c{n}", "method": "tools/call", "params": slow}, False)
        send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": f"c{n}"}}, False)
    if n % 500 == 0:
        # A burst of 2000 pings written at once, outside the window.
        burst = "".join(json.dumps({"jsonrpc": "2.0", "id": f"b{n}-{i}", "method": "ping"}) + "\n" for i in range(2000))
        server.stdin.write(burst.encode())
        server.stdin.flush()
    if time.time() - start >= next_sample:
        sample(next_sample)
        next_sample += 10
# Let what is in flight finish (cancelled requests are never answered), then idle past the 10 s after which extra workers exit.
time.sleep(15)
sample("idle+15")
server.stdin.close()
done.wait(30)
code = server.wait(30)
print("load: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + f"; exit {code}", flush=True)
EOF
fi
port=$(free_port)
"${CARGO_TARGET_DIR:-target}/release/tinymcp" --everything --no-watch --http "127.0.0.1:$port" 2>/dev/null &
server=$!
trap 'kill $server $load 2>/dev/null || true' EXIT
wait_port "$port"

python3 - "$port" "$DURATION" <<'EOF' &
import json, socket, sys, threading, time

port, duration = int(sys.argv[1]), float(sys.argv[2])
end = time.time() + duration
counts = {"calls": 0, "abandoned": 0, "streams": 0, "legacy": 0}
lock = threading.Lock()

def count(key):
    with lock:
        counts[key] = counts.get(key, 0) + 1

def error(where, e):
    count(f"errors in {where} ({type(e).__name__}: {str(e)[:60]})")

def request(sock, method, path, headers=(), body=""):
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {len(body.encode())}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers)
    sock.sendall((head + "\r\n" + body).encode())

def read_answer(f):
    status = int(f.readline().split()[1])
    headers = {}
    while True:
        line = f.readline().decode().strip()
        if not line:
            break
        k, v = line.split(":", 1)
        headers[k.strip().lower()] = v.strip()
    if headers.get("transfer-encoding") == "chunked":
        body = b""
        while True:
            size = int(f.readline().strip(), 16)
            chunk = f.read(size + 2)
            if size == 0:
                break
            body += chunk[:-2]
    else:
        body = f.read(int(headers.get("content-length", "0")))
    return status, headers, body

MCP = [("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json")]

def initialize(sock, f):
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}}}
    request(sock, "POST", "/mcp", MCP, json.dumps(init))
    status, headers, _ = read_answer(f)
    return headers.get("mcp-session-id")

def connect():
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    return sock, sock.makefile("rb")

def caller():
    # Sessions that make calls on one kept-alive connection, then end with DELETE.
    while time.time() < end:
        try:
            sock, f = connect()
            sid = initialize(sock, f)
            headers = MCP + [("Mcp-Session-Id", sid)]
            request(sock, "POST", "/mcp", headers, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            read_answer(f)
            for i in range(200):
                call = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                        "params": {"name": "echo", "arguments": {"message": "x" * (i * 10)}}}
                request(sock, "POST", "/mcp", headers, json.dumps(call))
                status, _, _ = read_answer(f)
                count("calls" if status == 200 else f"calls answered {status}")
            request(sock, "DELETE", "/mcp", [("Mcp-Session-Id", sid)])
            read_answer(f)
            sock.close()
        except Exception as e:
            error("caller", e)
            time.sleep(0.1)

def abandoner():
    # Handshakes never followed by a request; connections dropped at once.
    while time.time() < end:
        try:
            sock, f = connect()
            initialize(sock, f)
            sock.close()
            count("abandoned")
            time.sleep(0.05)
        except Exception as e:
            error("abandoner", e)
            time.sleep(0.1)

def streamer():
    # GET streams opened, read for a moment, dropped without a word.
    while time.time() < end:
        try:
            sock, f = connect()
            sid = initialize(sock, f)
            s2, f2 = connect()
            request(s2, "GET", "/mcp", [("Accept", "text/event-stream"), ("Mcp-Session-Id", sid)])
            f2.readline()
            time.sleep(0.5)
            s2.close()
            sock.close()
            count("streams")
        except Exception as e:
            error("streamer", e)
            time.sleep(0.1)

def legacy():
    # Legacy SSE sessions: open, initialize, one call read off the stream, drop.
    while time.time() < end:
        try:
            sock, f = connect()
            request(sock, "GET", "/sse", [("Accept", "text/event-stream")])
            endpoint = None
            while endpoint is None:
                line = f.readline().decode()
                if line.startswith("data: /messages"):
                    endpoint = line[6:].strip()
            for body in ({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}}},
                    {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}}):
                p, pf = connect()
                request(p, "POST", endpoint, [("Content-Type", "application/json")], json.dumps(body))
                read_answer(pf)
                p.close()
            while b'"id":1' not in f.readline():
                pass
            sock.close()
            count("legacy")
        except Exception as e:
            error("legacy", e)
            time.sleep(0.1)

threads = [threading.Thread(target=t, daemon=True) for t in (caller, caller, abandoner, streamer, streamer, legacy)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("load: " + ", ".join(f"{k} {v}" for k, v in counts.items()), flush=True)
EOF
load=$!

sample() {
  local rss threads fds
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$server/status")
  threads=$(awk '/^Threads:/ {print $2}' "/proc/$server/status")
  fds=$(ls "/proc/$server/fd" | wc -l)
  printf '%8s %10s %8s %6s\n' "$1" "$rss" "$threads" "$fds"
}
printf '%8s %10s %8s %6s\n' "seconds" "RSS KiB" "threads" "fds"
sample 0
elapsed=0
while kill -0 "$load" 2>/dev/null; do
  sleep 10
  elapsed=$((elapsed + 10))
  kill -0 "$server" 2>/dev/null || { echo "the server died"; exit 1; }
  sample "$elapsed"
done
wait "$load"
# After the load: idle connections time out (30 s), unused sessions expire (30 s).
sleep 40
sample "idle+40"
