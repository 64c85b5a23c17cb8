"""The load run of scripts/scale-test.sh: many clients calling `echo` through nginx at once.

Usage:
    scale-load.py --url URL --seconds S --modern N --older M --access-log FILE \
        --replica r1=HOST:PORT ... [--label TEXT] [--summary FILE]

`--modern N` threads speak revision 2026-07-28 (no session: `_meta` and the Mcp-* headers on every
POST) and never retry: a request without its echo is lost. `--older M` threads each hold a
2025-11-25 session (initialize, then calls with Mcp-Session-Id); a 404 means the session is gone,
so the thread initializes again (counted) and repeats the call, as the SDKs do. Every thread keeps
one connection to nginx alive. At the end: one table row (requests, errors, p50/p99 latency, each
replica's share of the answers, read from nginx's access log lines written during the run, where
`upstream=` names the replica that answered); the row also goes to --summary as JSON. Exits 1 when
a 2026-07-28 request was lost or an older client had to initialize more than once (with --strict:
also when an older client's call failed).

With --listen-folder DIR instead: the listen check (see `listen`).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import sys
import threading
import time
from urllib.parse import urlsplit

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
OLDER = "2025-11-25"


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = {"modern": [], "older": []}
        self.errors: dict[str, int] = {"modern": 0, "older": 0}
        self.samples: list[str] = []
        self.reinits: list[int] = []

    def ok(self, wire: str, seconds: float) -> None:
        with self.lock:
            self.latencies[wire].append(seconds)

    def error(self, wire: str, why: str) -> None:
        with self.lock:
            self.errors[wire] += 1
            if len(self.samples) < 8:
                self.samples.append(f"{wire}: {why}")


class Conn:
    """One keep-alive connection to nginx; reopened after a failure."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.path = parts.hostname, parts.port, parts.path
        self.conn: http.client.HTTPConnection | None = None

    def post(self, body: dict, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=15)
        all_headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        }
        try:
            self.conn.request("POST", self.path, json.dumps(body), all_headers)
            response = self.conn.getresponse()
            text = response.read().decode("utf-8", "replace")
        except Exception:
            self.conn.close()
            self.conn = None
            raise
        if response.getheader("Connection", "").lower() == "close":
            self.conn.close()
            self.conn = None
        return response.status, {k.lower(): v for k, v in response.getheaders()}, text


def answer_of(text: str, content_type: str) -> dict:
    """The JSON-RPC response in a JSON or SSE answer."""
    if "text/event-stream" in content_type:
        for line in text.splitlines():
            if line.startswith("data:"):
                message = json.loads(line[5:])
                if "result" in message or "error" in message:
                    return message
        raise ValueError("no response in the SSE answer")
    return json.loads(text)


def echoed(status: int, headers: dict[str, str], text: str, word: str) -> str | None:
    """None when the answer is the echo of `word`, else why not."""
    if status != 200:
        return f"HTTP {status}: {text.strip()[:120]}"
    try:
        message = answer_of(text, headers.get("content-type", ""))
    except ValueError as e:
        return f"unreadable answer: {e}: {text[:120]}"
    content = (message.get("result") or {}).get("content") or [{}]
    if content[0].get("text") != f"Echo: {word}":
        return f"not the echo: {json.dumps(message)[:160]}"
    return None


def modern(url: str, deadline: float, stats: Stats, n: int) -> None:
    conn = Conn(url)
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
    i = 0
    while time.monotonic() < deadline:
        i += 1
        word = f"m{n}-{i}"
        body = {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": word}, "_meta": MODERN_META},
        }
        start = time.monotonic()
        try:
            why = echoed(*conn.post(body, headers), word)
        except Exception as e:  # a connection error is a lost request too
            why = f"{type(e).__name__}: {e}"
        if why is None:
            stats.ok("modern", time.monotonic() - start)
        else:
            stats.error("modern", why)


def initialize(conn: Conn, n: int) -> str:
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": OLDER, "capabilities": {}, "clientInfo": {"name": f"scale-{n}", "version": "1"}},
    }
    status, headers, text = conn.post(body, {})
    session = headers.get("mcp-session-id")
    if status != 200 or not session:
        raise RuntimeError(f"initialize: HTTP {status}: {text[:120]}")
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    status, _, text = conn.post(note, {"Mcp-Session-Id": session, "MCP-Protocol-Version": OLDER})
    if status != 202:
        raise RuntimeError(f"notifications/initialized: HTTP {status}: {text[:120]}")
    return session


def older(url: str, deadline: float, stats: Stats, n: int) -> None:
    conn = Conn(url)
    reinits = 0
    session = None
    i = 0
    while time.monotonic() < deadline:
        i += 1
        word = f"o{n}-{i}"
        start = time.monotonic()
        try:
            if session is None:
                session = initialize(conn, n)
            body = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": word}}}
            headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": OLDER}
            status, answer_headers, text = conn.post(body, headers)
            if status == 404:  # the session is gone: a new one, and the same call again
                reinits += 1
                session = initialize(conn, n)
                headers["Mcp-Session-Id"] = session
                status, answer_headers, text = conn.post(body, headers)
            why = echoed(status, answer_headers, text, word)
        except Exception as e:
            why = f"{type(e).__name__}: {e}"
        if why is None:
            stats.ok("older", time.monotonic() - start)
        else:
            stats.error("older", why)
    with stats.lock:
        stats.reinits.append(reinits)


def listen(url: str, folder: str, streams: int, access_log: str, replicas: dict[str, str]) -> int:
    """`streams` 2026-07-28 listen streams through nginx (round-robin: one per replica), then a
    new file in the folder every replica serves: each stream must hear
    notifications/resources/list_changed from its own replica's watcher within 5 s."""
    log_start = os.path.getsize(access_log)
    parts = urlsplit(url)
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "subscriptions/listen",
        "params": {"notifications": {"resourcesListChanged": True}, "_meta": MODERN_META},
    }
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "subscriptions/listen",
    }
    opened = []
    for _ in range(streams):
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=8)
        conn.request("POST", parts.path, json.dumps(body), headers)
        response = conn.getresponse()
        if response.status != 200:
            print(f"listen: HTTP {response.status}: {response.read()[:200]!r}", file=sys.stderr)
            return 1
        opened.append((conn, response))

    def next_method(response: http.client.HTTPResponse) -> str:
        while True:
            line = response.readline().decode("utf-8", "replace")
            if not line:
                raise EOFError("the stream ended")
            if line.startswith("data:"):
                return json.loads(line[5:]).get("method", "")

    for _, response in opened:
        method = next_method(response)
        if method != "notifications/subscriptions/acknowledged":
            print(f"listen: expected the acknowledgement first, got {method}", file=sys.stderr)
            return 1
    name = os.path.join(folder, f"added-{os.getpid()}.txt")
    with open(name, "w", encoding="utf-8") as f:
        f.write("a file every replica serves\n")
    started = time.monotonic()
    heard = []
    failed = 0
    for conn, response in opened:
        try:
            method = next_method(response)
            while method != "notifications/resources/list_changed":
                method = next_method(response)
            heard.append(time.monotonic() - started)
        except Exception as e:  # a timeout: this stream's replica never saw the change
            print(f"listen: a stream heard nothing: {type(e).__name__}: {e}", file=sys.stderr)
            failed += 1
        conn.close()
    time.sleep(0.3)
    by_addr = {addr: name for name, addr in replicas.items()}
    holders = []
    with open(access_log, encoding="utf-8", errors="replace") as f:
        f.seek(log_start)
        for line in f:
            found = UPSTREAM.search(line)
            if "POST /mcp" in line and found:
                holders.append(by_addr.get(found.group(1).split(",")[-1].strip(), "?"))
    print(
        f"listen streams on {', '.join(sorted(holders)) or '?'}: {len(heard)} of {streams} heard a new file in the "
        f"shared folder (within {max(heard, default=0):.1f} s, each from its own replica's watcher)"
    )
    return 1 if failed else 0


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1)))] * 1000


UPSTREAM = re.compile(r"upstream=(\S.*?) ustatus=")


def shares(log: str, start: int, replicas: dict[str, str]) -> tuple[dict[str, int], int]:
    """Answers per replica in the log lines written after byte `start`, and how many requests
    nginx tried on more than one replica."""
    by_addr = {addr: name for name, addr in replicas.items()}
    counts = {name: 0 for name in replicas}
    retried = 0
    with open(log, encoding="utf-8", errors="replace") as f:
        f.seek(start)
        for line in f:
            if "POST /mcp" not in line:
                continue
            found = UPSTREAM.search(line)
            if not found:
                continue
            tried = [a.strip() for a in found.group(1).replace(" : ", ", ").split(",")]
            retried += len(tried) > 1
            name = by_addr.get(tried[-1])
            if name:
                counts[name] += 1
    return counts, retried


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--modern", type=int, default=12)
    parser.add_argument("--older", type=int, default=6)
    parser.add_argument("--access-log", required=True)
    parser.add_argument("--replica", action="append", default=[], help="NAME=HOST:PORT")
    parser.add_argument("--label", default="steady")
    parser.add_argument("--summary")
    parser.add_argument("--strict", action="store_true", help="an older client's error fails the run too")
    parser.add_argument("--listen-folder", help="instead of load: the listen check on this shared folder")
    args = parser.parse_args()
    replicas = dict(r.split("=", 1) for r in args.replica)
    if args.listen_folder:
        return listen(args.url, args.listen_folder, len(replicas), args.access_log, replicas)

    stats = Stats()
    log_start = os.path.getsize(args.access_log)
    deadline = time.monotonic() + args.seconds
    threads = [threading.Thread(target=modern, args=(args.url, deadline, stats, n)) for n in range(args.modern)]
    threads += [threading.Thread(target=older, args=(args.url, deadline, stats, n)) for n in range(args.older)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    time.sleep(0.3)  # nginx writes a line once the answer is sent
    counts, retried = shares(args.access_log, log_start, replicas)

    all_latencies = stats.latencies["modern"] + stats.latencies["older"]
    answered = sum(counts.values()) or 1
    row = {
        "label": args.label,
        "requests": len(all_latencies) + stats.errors["modern"] + stats.errors["older"],
        "per_s": round(len(all_latencies) / elapsed),
        "lost_modern": stats.errors["modern"],
        "errors_older": stats.errors["older"],
        "max_reinit": max(stats.reinits, default=0),
        "p50_ms": round(percentile(all_latencies, 0.5), 1),
        "p99_ms": round(percentile(all_latencies, 0.99), 1),
        "share": {name: round(100 * n / answered) for name, n in counts.items()},
        "retried_by_nginx": retried,
    }
    share = " ".join(f"{name} {pct}%" for name, pct in row["share"].items())
    print(
        f"| {row['label']:<22} | {row['requests']:>8} | {row['per_s']:>5} | {row['lost_modern']:>11} | "
        f"{row['errors_older']:>12} | {row['max_reinit']:>10} | {row['p50_ms']:>6} | {row['p99_ms']:>6} | "
        f"{share:<21} | {row['retried_by_nginx']:>7} |",
        flush=True,
    )
    for sample in stats.samples[:3]:
        print(f"    e.g. {sample}", file=sys.stderr)
    if args.summary:
        with open(args.summary, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
    return 1 if row["lost_modern"] or row["max_reinit"] > 1 or (args.strict and row["errors_older"]) else 0


HEADER = (
    "| run                    | requests | req/s | lost (2026) | errors (old) | re-init ≤1 | p50 ms | p99 ms | "
    "answered by           | retried |\n"
    "|------------------------|---------:|------:|------------:|-------------:|-----------:|-------:|-------:|"
    "-----------------------|--------:|"
)

if __name__ == "__main__":
    if sys.argv[1:] == ["--header"]:
        print(HEADER)
        sys.exit(0)
    sys.exit(main())
