"""What a replica's stop costs each wire: run beside a load run of scripts/scale-test.sh while one
replica (the victim) is stopped, by SIGTERM (drain) or SIGKILL.

Usage:
    scale-probe.py --url http://HOST:PORT --victim r2 --victim-health URL --ready FILE --seconds S

Before the signal it places, through nginx, on the victim: a 2025-11-25 session with its GET
stream, a legacy /sse session, a 2026-07-28 task (slow_compute, 60 s), and three 2026-07-28
calls of 3 s (round-robin, one on each replica); then it writes FILE so the script may send the
signal (the script writes when it sent it to FILE.signalled). Afterwards it reports, one line
each, what happened: when the streams ended and whether with a `retry:` hint, whether the
session's next POST and a new GET were served elsewhere without a new initialize, whether the
legacy session and the task survived (they cannot: they live in the victim's memory), and
whether the in-flight calls were answered. Prints only; the
caller decides (the script asserts on the load runs' figures, not on these).
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import threading
import time
from urllib.parse import urlsplit

OLDER = "2025-11-25"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
}
ACCEPT = "application/json, text/event-stream"


class Url:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname, parts.port

    def conn(self, timeout: float = 10) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def post(self, path: str, body: dict, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
        c = self.conn()
        try:
            c.request("POST", path, json.dumps(body), {"Content-Type": "application/json", "Accept": ACCEPT, **headers})
            r = c.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode("utf-8", "replace")
        finally:
            c.close()


def message_of(text: str) -> dict:
    for line in text.splitlines():
        if line.startswith("data:") and ('"result"' in line or '"error"' in line):
            return json.loads(line[5:])
    return json.loads(text) if text.strip().startswith("{") else {}


class Stream:
    """An SSE response read line by line on its own thread: when it ended, with a retry: hint?"""

    def __init__(self, response: http.client.HTTPResponse, conn: http.client.HTTPConnection) -> None:
        self.response, self.conn = response, conn
        self.lines: list[tuple[float, str]] = []
        self.ended_at: float | None = None
        self.first = threading.Event()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self) -> None:
        try:
            while True:
                line = self.response.readline().decode("utf-8", "replace")
                if not line:
                    break
                self.lines.append((time.time(), line.rstrip("\r\n")))
                self.first.set()
        except Exception:
            pass
        self.ended_at = time.time()
        self.first.set()

    def close(self) -> None:
        """Ends it now: a shutdown wakes the blocked reader (a plain close would wait for it)."""
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass
        self.conn.close()

    def retry_after(self, since: float) -> bool:
        return any(t >= since and line.startswith("retry:") for t, line in self.lines)


def open_stream(url: Url, method: str, path: str, headers: dict[str, str], timeout: float) -> tuple[int, Stream | None]:
    c = url.conn(timeout)
    c.request(method, path, headers={"Accept": "text/event-stream", **headers})
    r = c.getresponse()
    if r.status != 200:
        r.read()
        c.close()
        return r.status, None
    return 200, Stream(r, c)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--victim", required=True)
    parser.add_argument("--victim-health", required=True)
    parser.add_argument("--ready", required=True)
    parser.add_argument("--seconds", type=float, default=8)
    args = parser.parse_args()
    url, mine = Url(args.url), f"{args.victim}."
    deadline = time.time() + args.seconds + 5
    report: list[str] = []

    # A 2025-11-25 session on the victim (initialize lands round-robin), and its GET stream.
    session = None
    for i in range(12):
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": OLDER, "capabilities": {}, "clientInfo": {"name": f"probe-{i}", "version": "1"}},
        }
        _, headers, _ = url.post("/mcp", init, {})
        sid = headers.get("mcp-session-id", "")
        if sid.startswith(mine):
            session = sid
            break
    older = {"Mcp-Session-Id": session or "", "MCP-Protocol-Version": OLDER}
    url.post("/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, older)
    _, get_stream = open_stream(url, "GET", "/mcp", older, 60)

    # A legacy HTTP+SSE session on the victim.
    legacy, legacy_path = None, None
    for _ in range(12):
        status, stream = open_stream(url, "GET", "/sse", {}, 60)
        if stream is None:
            continue
        stream.first.wait(3)
        endpoint = next((line[5:].strip() for _, line in stream.lines if line.startswith("data:")), "")
        if f"sessionId={mine}" in endpoint:
            legacy, legacy_path = stream, endpoint
            break
        stream.close()

    # A 2026-07-28 task on the victim (its id starts with the victim's node id).
    task = None
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow_compute", "arguments": {"seconds": 60}, "_meta": META}}
    modern = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "slow_compute"}
    for _ in range(12):
        _, _, text = url.post("/mcp", call, modern)
        task_id = (message_of(text).get("result") or {}).get("taskId", "")
        if task_id.startswith(mine):
            task = task_id
            break

    # Three 3 s calls in flight across the replicas when the signal comes.
    slow = []

    def slow_call(n: int) -> None:
        body = {"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call", "params": {"name": "slow_compute", "arguments": {"seconds": 3, "label": f"s{n}"}, "_meta": {**META, "io.modelcontextprotocol/clientCapabilities": {}}}}
        start = time.time()
        try:
            status, _, text = url.post("/mcp", body, modern)
            ok = status == 200 and "finished after" in json.dumps(message_of(text))
        except Exception:
            ok = False
        slow.append((ok, time.time() - start))

    callers = [threading.Thread(target=slow_call, args=(n,)) for n in range(3)]
    for t in callers:
        t.start()
    time.sleep(0.3)
    with open(args.ready, "w", encoding="utf-8") as f:
        f.write("ready\n")
    signalled = time.time() + 1.0  # the script signals 1 s after FILE appears, and says when

    # The victim gone (its /healthz refuses or says 503 no more matters: wait until it is down).
    def victim_down() -> bool:
        target = urlsplit(args.victim_health)
        c = http.client.HTTPConnection(target.hostname, target.port, timeout=1)
        try:
            c.request("GET", target.path)
            c.getresponse().read()
            return False
        except Exception:
            return True
        finally:
            c.close()

    while time.time() < deadline and not victim_down():
        time.sleep(0.1)
    down_at = time.time()
    try:
        with open(args.ready + ".signalled", encoding="utf-8") as f:
            signalled = float(f.read().strip())
    except (OSError, ValueError):
        pass
    for t in callers:
        t.join(timeout=max(0.1, deadline - time.time()))

    def ended(stream: Stream | None) -> str:
        if stream is None:
            return "not opened"
        if stream.ended_at is None:
            return "still open"
        hint = "with a retry: hint" if stream.retry_after(signalled - 1) else "without a retry: hint"
        return f"ended {max(0.0, stream.ended_at - signalled):.1f} s after the signal, {hint}"

    if session:
        echo = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "after"}}}
        status, _, text = url.post("/mcp", echo, older)
        served = status == 200 and "Echo: after" in text
        status_get, again = open_stream(url, "GET", "/mcp", older, 3)
        if again:
            again.close()
        report.append(
            f"2025-11-25 session on {args.victim}: GET stream {ended(get_stream)}; its next POST "
            f"{'served by another replica, no new initialize' if served else f'failed (HTTP {status})'}; "
            f"GET opened again: HTTP {status_get}"
        )
    else:
        report.append(f"2025-11-25 session on {args.victim}: none placed (no session id started with {mine})")
    if legacy and legacy_path:
        ping = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
        status, _, _ = url.post(legacy_path, ping, {})
        report.append(
            f"legacy SSE session on {args.victim}: stream {ended(legacy)}; its POST /messages then: HTTP {status}"
            + (" (lost: the client opens /sse again, a new session)" if status == 404 else "")
        )
    else:
        report.append(f"legacy SSE session on {args.victim}: none placed")
    if task:
        get = {"jsonrpc": "2.0", "id": 8, "method": "tasks/get", "params": {"taskId": task, "_meta": META}}
        status, _, text = url.post("/mcp", get, {**modern, "Mcp-Method": "tasks/get", "Mcp-Name": task})
        answer = message_of(text)
        state = (answer.get("result") or {}).get("status") or (answer.get("error") or {}).get("message", f"HTTP {status}")
        report.append(f"2026-07-28 task on {args.victim} (60 s of work): tasks/get after it went down: {state}")
    else:
        report.append(f"2026-07-28 task on {args.victim}: none placed")
    answered = sum(ok for ok, _ in slow)
    slowest = max((s for _, s in slow), default=0)
    report.append(
        f"2026-07-28 calls of 3 s in flight on the three replicas: {answered} of 3 answered "
        f"(the slowest in {slowest:.1f} s); {args.victim} down {max(0.0, down_at - signalled):.1f} s after the signal"
    )
    for line in report:
        print(line)
    for stream in (get_stream, legacy):
        if stream:
            stream.close()


if __name__ == "__main__":
    main()
